import { hash, randomBytes } from 'node:crypto';

// The primitives every credential is made and stored with (API keys, OAuth codes and tokens,
// dashboard sessions): random base62 bodies, stored only as SHA-256.

const BASE62 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** SHA-256 as hex; every request's credential goes through it (one call, no Hash object). */
export function hashSecret(secret: string): string {
  return hash('sha256', secret, 'hex');
}

export function randomBase62(length: number): string {
  // Rejection sampling keeps every character equally likely.
  let out = '';
  while (out.length < length) {
    for (const b of randomBytes(length * 2)) {
      if (b < 248 && out.length < length) out += BASE62[b % 62];
    }
  }
  return out;
}
