import { randomBytes } from 'node:crypto';

// Crockford base32, lowercase: no i, l, o, u, so ids survive being read aloud or retyped.
const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';

/** Prefix of every resource kind, so an id says what it is (`srv_...`). */
export const ID_PREFIX = {
  apiKey: 'key',
  server: 'srv',
  serverIp: 'ip',
  snapshot: 'snap',
  event: 'evt',
  walletTransaction: 'txn',
  providerJob: 'job',
  upstream: 'up',
  webhook: 'wh',
  webhookDelivery: 'whd',
  webhookAttempt: 'wha',
  invoice: 'inv',
  invoiceItem: 'invi',
  domain: 'dom',
  ticket: 'tkt',
  ticketMessage: 'tmsg',
  serverAddon: 'sad',
  ssoToken: 'sso',
  pool: 'pool',
  hosting: 'hst',
  hostingDatabase: 'hdb',
  hostingCronJob: 'hcj',
  hostingProtectedDir: 'hpd',
  hostingBackup: 'hbk',
  hostingSshSession: 'hss',
} as const;

/**
 * `<prefix>_` + 10 chars of millisecond time + 16 random chars (80 bits): ids sort by
 * creation time, which keyset pagination relies on.
 */
export function newId(prefix: string, now = Date.now()): string {
  let time = '';
  let t = now;
  for (let i = 0; i < 10; i++) {
    time = ALPHABET[t % 32] + time;
    t = Math.floor(t / 32);
  }
  const bytes = randomBytes(16);
  let rand = '';
  for (const b of bytes) rand += ALPHABET[b % 32];
  return `${prefix}_${time}${rand}`;
}

/** The creation time (ms) encoded in an id made by newId. */
export function idTimeMs(id: string): number {
  const time = id.slice(id.indexOf('_') + 1, id.indexOf('_') + 11);
  let t = 0;
  for (const ch of time) t = t * 32 + ALPHABET.indexOf(ch);
  return t;
}
