import { createHash, createHmac, hkdfSync, randomBytes, timingSafeEqual } from 'node:crypto';
import type { App } from '../../app-services.ts';
import { stableJson } from './idempotency.ts';

/**
 * Confirmation tokens of MCP tools that spend or destroy (src/http/executor/stages/confirm.ts):
 * what a client without elicitation gets instead of a run, with the quote, and sends back with the
 * same call once a person has agreed. A token is signed (HMAC-SHA256 with a key derived from the
 * app's secret key, the one that seals idempotency records: WEBHOOK_SECRET_KEY or
 * DATA_DIR/webhook-secret-key), expires after CONFIRMATION_TTL_MS on the app's clock, and is bound
 * to the credential, the tool, the call's arguments and the quote's terms; it is single-use: its
 * nonce is recorded (McpConfirmation, primary key) before the operation runs, so a replay, even
 * a concurrent one, finds the row and is refused.
 */
export const CONFIRMATION_TTL_MS = 5 * 60 * 1000;

/** What a token is bound to: who calls, which tool, with which arguments, at which price. */
export interface ConfirmedCall {
  accountId: string;
  credentialId: string;
  tool: string;
  /** The tool call's arguments, as the operation receives them (the token itself left out). */
  variables: Record<string, unknown>;
  /** The quote's terms (src/modules/billing/quotes.ts): the price, not the wallet balance. */
  terms: Record<string, unknown>;
}

interface Payload {
  /** nonce */
  n: string;
  /** expires, ms since the epoch (app clock) */
  x: number;
  /** the credential (account and credential id) */
  c: string;
  /** the tool and its arguments */
  a: string;
  /** the quote's terms */
  q: string;
}

const PREFIX = 'cfm_';

/** The HMAC key: derived from the app's secret key, so a token and a sealed record never share a key. */
const keys = new WeakMap<Buffer, Buffer>();
function tokenKey(appKey: Buffer): Buffer {
  let key = keys.get(appKey);
  if (!key) {
    key = Buffer.from(hkdfSync('sha256', appKey, Buffer.alloc(0), 'mcp confirmation token v1', 32));
    keys.set(appKey, key);
  }
  return key;
}

const digest = (...parts: string[]) => createHash('sha256').update(parts.join('\0')).digest('base64url').slice(0, 22);

function bindings(call: ConfirmedCall): Pick<Payload, 'c' | 'a' | 'q'> {
  return {
    c: digest(call.accountId, call.credentialId),
    a: digest(call.tool, stableJson(call.variables)),
    q: digest(stableJson(call.terms)),
  };
}

const mac = (appKey: Buffer, body: string) => createHmac('sha256', tokenKey(appKey)).update(body).digest();

/** A token for `call`, valid CONFIRMATION_TTL_MS from now (app clock). */
export function issueConfirmation(app: Pick<App, 'webhookSecretKey' | 'clock'>, call: ConfirmedCall): string {
  const payload: Payload = {
    n: randomBytes(16).toString('base64url'),
    x: app.clock.now().getTime() + CONFIRMATION_TTL_MS,
    ...bindings(call),
  };
  const body = Buffer.from(JSON.stringify(payload)).toString('base64url');
  return `${PREFIX}${body}.${mac(app.webhookSecretKey, body).toString('base64url')}`;
}

/** Why a token was refused: said to the agent, which then asks for a new quote. */
export type ConfirmationRefusal = 'malformed' | 'expired' | 'credential' | 'arguments' | 'price' | 'used';

export const CONFIRMATION_REFUSALS: Record<ConfirmationRefusal, string> = {
  malformed: 'This confirmation token is not one this service issued, or it was altered.',
  expired: `This confirmation token has expired (tokens last ${CONFIRMATION_TTL_MS / 60_000} minutes).`,
  credential: 'This confirmation token was issued to another credential.',
  arguments: 'This confirmation token was issued for another tool or other arguments.',
  price: 'The price changed since this confirmation token was issued.',
  used: 'This confirmation token was already used; the call it confirmed has run.',
};

/**
 * Checks a token against `call` and spends it: null when it confirms this call (its nonce is now
 * recorded: nobody can use it again), else why not. Checked in this order: signature, expiry,
 * credential, arguments, price, then the single use (one insert; of two concurrent uses one wins).
 */
export async function redeemConfirmation(
  app: Pick<App, 'webhookSecretKey' | 'clock' | 'prisma'>,
  token: string,
  call: ConfirmedCall,
): Promise<ConfirmationRefusal | null> {
  const payload = verified(app.webhookSecretKey, token);
  if (!payload) return 'malformed';
  const now = app.clock.now();
  if (payload.x <= now.getTime()) return 'expired';
  const expected = bindings(call);
  if (payload.c !== expected.c) return 'credential';
  if (payload.a !== expected.a) return 'arguments';
  if (payload.q !== expected.q) return 'price';
  const { count } = await app.prisma.mcpConfirmation.createMany({
    data: [
      {
        nonce: payload.n,
        accountId: call.accountId,
        credentialId: call.credentialId,
        tool: call.tool,
        usedAt: now,
        expiresAt: new Date(payload.x),
      },
    ],
    skipDuplicates: true,
  });
  if (count !== 1) return 'used';
  // A used token matters only until it expires: the account's expired rows go.
  await app.prisma.mcpConfirmation.deleteMany({ where: { accountId: call.accountId, expiresAt: { lte: now } } });
  return null;
}

/** The payload of a token this app signed, or null (not ours, altered, or not a token at all). */
function verified(appKey: Buffer, token: string): Payload | null {
  if (!token.startsWith(PREFIX) || token.length > 512) return null;
  const [body, signature, extra] = token.slice(PREFIX.length).split('.');
  if (!body || !signature || extra !== undefined) return null;
  const expected = mac(appKey, body);
  const given = Buffer.from(signature, 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
  try {
    const p = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as Payload;
    return typeof p.n === 'string' && typeof p.x === 'number' ? p : null;
  } catch {
    return null;
  }
}
