import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Logger } from 'pino';

/**
 * Webhook signing secrets: generated here, shown in full only on create and rotate, stored
 * only as AES-256-GCM ciphertext (`v1.<iv>.<tag>.<ciphertext>`, base64url) with the
 * webhook id as associated data, so a ciphertext copied onto another row does not decrypt.
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
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(webhookId));
  const ct = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
  return ['v1', iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), ct.toString('base64url')].join(
    '.',
  );
}

export function decryptSecret(key: Buffer, webhookId: string, stored: string): string {
  const [version, iv, tag, ct] = stored.split('.');
  if (version !== 'v1' || !iv || !tag || ct === undefined) throw new Error('Unknown webhook secret format');
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
  decipher.setAAD(Buffer.from(webhookId));
  decipher.setAuthTag(Buffer.from(tag, 'base64url'));
  return Buffer.concat([decipher.update(Buffer.from(ct, 'base64url')), decipher.final()]).toString('utf8');
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
