import { randomBytes } from 'node:crypto';

/** The payment gateways an invoice or a wallet deposit can go through (the spec's card, online payment service and cryptocurrency). */
export const GATEWAYS = ['card', 'online', 'crypto'] as const;
export type GatewayName = (typeof GATEWAYS)[number];

interface ChargeRequest {
  accountId: string;
  amountUsdCents: number;
  description: string;
  /** What is being paid (`inv_...`, `txn_...`). */
  reference?: string | null;
}

/** What the platform asks of a payment gateway. Real drivers (a card processor, PayPal, a crypto processor) implement the same. */
export interface PaymentGateway {
  readonly name: GatewayName;
  /** Takes the money; resolves with the gateway's own charge id, or rejects with a PaymentDeclined. */
  charge(req: ChargeRequest, now: Date): Promise<{ chargeId: string }>;
}

class PaymentDeclined extends Error {}

/**
 * Simulated gateways: every charge succeeds at once and gets an id in the gateway's own
 * style (a card charge id, an online-payment capture id, a transaction hash). Nothing leaves
 * the process.
 */
class SimulatedGateway implements PaymentGateway {
  constructor(
    readonly name: GatewayName,
    private readonly chargeId: () => string,
  ) {}

  async charge(req: ChargeRequest): Promise<{ chargeId: string }> {
    if (!Number.isSafeInteger(req.amountUsdCents) || req.amountUsdCents <= 0)
      throw new PaymentDeclined('amount must be a positive integer of cents');
    return { chargeId: this.chargeId() };
  }
}

export const paymentGateways: Record<GatewayName, PaymentGateway> = {
  card: new SimulatedGateway('card', () => `ch_sim_${randomBytes(12).toString('hex')}`),
  online: new SimulatedGateway('online', () => `pay_sim_${randomBytes(12).toString('hex')}`),
  crypto: new SimulatedGateway('crypto', () => `0x${randomBytes(32).toString('hex')}`),
};

export function isGateway(value: unknown): value is GatewayName {
  return typeof value === 'string' && (GATEWAYS as readonly string[]).includes(value);
}
