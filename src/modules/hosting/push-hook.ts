import { createHmac, timingSafeEqual } from 'node:crypto';
import type { PrismaClient } from '../../generated/prisma/client.ts';
import { tenantClient } from '../../db/tenant.ts';
import { ApiError, notFound, unauthorized } from '../../errors.ts';
import { decryptSecret } from '../webhooks/secrets.ts';
import { gitPull } from './git.ts';
import { PUSH_HOOK_SCHEME, PUSH_HOOK_WINDOW_SECONDS } from './push-hook-scheme.ts';
import type { HostingContext } from './service.ts';

/**
 * The push-to-deploy receiver, `POST {PUBLIC_BASE_URL}/hooks/git/:hostingId`: a git host (or a CI
 * step) calls it after a push, and the site pulls the latest commit. No API credential: the request
 * proves itself with the account's push-to-deploy secret, as Stripe signs its events, with the
 * delivery id inside the MAC:
 *
 *   X-Service-Delivery: <id>          1 to 100 of A-Z a-z 0-9 _ : -, new for every delivery
 *   X-Service-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<id>.<raw body>">
 *
 * (push-hook-scheme.ts). A captured request cannot be replayed: its timestamp must be within PUSH_HOOK_WINDOW_SECONDS of
 * the app clock, and each delivery id is taken once per hosting account (a primary-key insert,
 * so two copies racing get one acceptance). An unknown account, or one without push-to-deploy
 * enabled, answers 404 like a bad signature would tell nothing more.
 */

// No "." in an id: the signed text's fields stay unambiguous (an id cannot borrow from the body).
const DELIVERY_ID = /^[A-Za-z0-9_:-]{1,100}$/;

const SCHEME = PUSH_HOOK_SCHEME;

export interface PushHookHeaders {
  signature?: string | null;
  delivery?: string | null;
}

export async function receivePushHook(
  app: HostingContext['app'] & { prisma: PrismaClient },
  hostingId: string,
  rawBody: Buffer,
  headers: PushHookHeaders,
) {
  const row = await app.prisma.hostingGitDeploy.findUnique({ where: { hostingId } }).catch(() => null);
  if (!row?.webhookEnabled || !row.webhookSecretEnc) throw notFound('Push-to-deploy hook');
  const signed = parseSignature(headers);
  const secret = decryptSecret(app.webhookSecretKey, `git:${hostingId}`, row.webhookSecretEnc);
  const expected = createHmac('sha256', secret).update(`${signed.t}.${signed.delivery}.`).update(rawBody).digest('hex');
  if (!signed.v1.some((given) => sameHex(given, expected)))
    throw unauthorized(`The push-to-deploy signature does not match. ${SCHEME}`);

  const now = app.clock.now();
  const at = signed.t * 1000;
  if (Math.abs(now.getTime() - at) > PUSH_HOOK_WINDOW_SECONDS * 1000)
    throw new ApiError(
      401,
      `The signature's timestamp is more than ${PUSH_HOOK_WINDOW_SECONDS} seconds from the server's clock (now ${Math.floor(now.getTime() / 1000)}): sign the request again with the current time.`,
      { code: 'SIGNATURE_EXPIRED' },
    );
  // Past its timestamp plus the window a delivery is refused as stale, so its id need not be kept.
  await app.prisma.hostingHookDelivery.deleteMany({ where: { expiresAt: { lte: now } } });
  const { count } = await app.prisma.hostingHookDelivery.createMany({
    data: [
      {
        hostingId,
        deliveryId: signed.delivery,
        receivedAt: now,
        expiresAt: new Date(at + PUSH_HOOK_WINDOW_SECONDS * 1000),
      },
    ],
    skipDuplicates: true,
  });
  if (count !== 1)
    throw new ApiError(
      409,
      `Delivery ${signed.delivery} was already received: nothing was deployed again. Send a new delivery id for a new push.`,
      { code: 'DELIVERY_REPLAYED' },
    );
  const ctx: HostingContext = {
    app,
    principal: { accountId: row.accountId },
    db: tenantClient(app.prisma, row.accountId),
  };
  return gitPull(ctx, hostingId);
}

/** The signature header's timestamp and v1 values (several while a sender rotates), and the delivery id; 401 when malformed. */
function parseSignature(headers: PushHookHeaders): { t: number; v1: string[]; delivery: string } {
  const delivery = headers.delivery?.trim() ?? '';
  if (!headers.signature || !DELIVERY_ID.test(delivery))
    throw unauthorized(`The push-to-deploy call is not signed (X-Service-Signature and X-Service-Delivery). ${SCHEME}`);
  let t = Number.NaN;
  const v1: string[] = [];
  for (const part of headers.signature.split(',')) {
    const [name, value = ''] = part.trim().split('=', 2);
    if (name === 't' && /^\d{1,12}$/.test(value)) t = Number(value);
    else if (name === 'v1' && /^[0-9a-fA-F]{64}$/.test(value)) v1.push(value.toLowerCase());
  }
  if (!Number.isFinite(t) || v1.length === 0)
    throw unauthorized(`X-Service-Signature must be "t=<unix seconds>,v1=<hex HMAC-SHA256>". ${SCHEME}`);
  return { t, v1, delivery };
}

function sameHex(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}
