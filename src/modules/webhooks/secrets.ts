import { createHmac, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Logger } from 'pino';
import { seal, unseal } from '../../core/sealed.ts';

/**
 * Webhook signing secrets: generated here, shown in full only on create and rotate, stored
 * only sealed with the app's key (src/core/sealed.ts) with the webhook id as associated data.
 */
const SECRET_PREFIX = 'whsec_';

export function generateSecret(): string {
  return SECRET_PREFIX + randomBytes(24).toString('base64url');
}

/** What reads show instead of the secret: the prefix, asterisks and the last 4 characters. */
export function maskSecret(hint: string): string {
  return `${SECRET_PREFIX}****${hint}`;
}

export function secretHint(secret: string): string {
  return secret.slice(-4);
}

export function encryptSecret(key: Buffer, webhookId: string, secret: string): string {
  return seal(key, webhookId, secret);
}

export function decryptSecret(key: Buffer, webhookId: string, stored: string): string {
  return unseal(key, webhookId, stored);
}

/**
 * `X-Service-Signature: t=<unix seconds>,v1=<lowercase hex HMAC-SHA256(secret, "<t>.<raw body>")>`,
 * the scheme Stripe's verifiers accept unchanged.
 */
export function signatureHeader(secret: string, body: string, unixSeconds: number): string {
  const mac = createHmac('sha256', secret).update(`${unixSeconds}.${body}`).digest('hex');
  return `t=${unixSeconds},v1=${mac}`;
}

/**
 * The encryption key: WEBHOOK_SECRET_KEY (64 hex characters or base64 of 32 bytes), or one
 * generated once into DATA_DIR/webhook-secret-key (the log names the file, never the value).
 * Instances sharing a PostgreSQL database must share the key: set WEBHOOK_SECRET_KEY there.
 */
export function resolveWebhookSecretKey(opts: { key?: string; dataDir: string; log: Logger }): Buffer {
  if (opts.key) return parseKey(opts.key, 'WEBHOOK_SECRET_KEY');
  const file = path.join(opts.dataDir, 'webhook-secret-key');
  if (!fs.existsSync(file)) {
    fs.writeFileSync(file, `${randomBytes(32).toString('hex')}\n`, { mode: 0o600, flag: 'wx' });
    opts.log.info({ file }, 'WEBHOOK_SECRET_KEY not set: generated a webhook secret encryption key');
  }
  return parseKey(fs.readFileSync(file, 'utf8').trim(), file);
}

function parseKey(value: string, source: string): Buffer {
  const key = /^[0-9a-fA-F]{64}$/.test(value) ? Buffer.from(value, 'hex') : Buffer.from(value, 'base64');
  if (key.length !== 32) throw new Error(`${source} must be 32 bytes: 64 hex characters or base64`);
  return key;
}
