import { randomFillSync } from 'node:crypto';
import { Prisma } from '../generated/prisma/client.ts';

import { ID_ALPHABET as ALPHABET } from '../core/ids.ts';
import { AREAS, type IdPrefixes } from '../modules/areas.ts';

/** The simulated datacenter's job queue and its upstream records (src/provider). */
const PROVIDER_ID_PREFIX = { providerJob: 'job', upstream: 'up' } as const;

/**
 * Prefix of every resource kind, so an id says what it is (`srv_...`): each module declares the
 * kinds it stores in its manifest (src/modules/<area>/manifest.ts, data only, so this layer may
 * read it); the provider layer's own two are here, as it is no module.
 */
export const ID_PREFIX: IdPrefixes & typeof PROVIDER_ID_PREFIX = Object.assign(
  {},
  ...AREAS.map((a) => ('idPrefixes' in a ? a.idPrefixes : {})),
  PROVIDER_ID_PREFIX,
);

/**
 * `<prefix>_` + 10 chars of millisecond time + 16 random chars (80 bits): ids sort by
 * creation time, which keyset pagination relies on.
 */
export function newId(prefix: string, now = Date.now()): string {
  if (poolAt + 16 > randomPool.length) {
    randomFillSync(randomPool);
    poolAt = 0;
  }
  let rand = '';
  for (let i = poolAt; i < poolAt + 16; i++) rand += ALPHABET[randomPool[i] % 32];
  poolAt += 16;
  return `${prefix}_${idTimePart(now)}${rand}`;
}

// Random bytes drawn 4 KiB at a time (256 ids): one call into the CSPRNG per id cost more
// than the rest of making it (crypto.randomUUID keeps a cache the same way).
const randomPool = Buffer.alloc(4096);
let poolAt = randomPool.length;

/** The 10 time characters of an id made at `ms`. */
export function idTimePart(ms: number): string {
  let time = '';
  let t = ms;
  for (let i = 0; i < 10; i++) {
    time = ALPHABET[t % 32] + time;
    t = Math.floor(t / 32);
  }
  return time;
}

/**
 * SQL for the 16 random characters of an id, for ids made inside a statement (one per row it
 * makes). `rowRef` must name a column of that row: a subquery that does not refer to the row
 * runs once per statement, and every row would get the same characters. 80 bits from
 * PostgreSQL's `random()` are as unique as newId's, which is all an id needs.
 */
export function sqlIdRandomPart(rowRef: Prisma.Sql): Prisma.Sql {
  return Prisma.sql`(SELECT string_agg(substr(${ALPHABET}, 1 + floor(random() * 32)::int, 1), '') FROM generate_series(1, 16) WHERE ${rowRef} IS NOT NULL)`;
}

/** The creation time (ms) encoded in an id made by newId. */
export function idTimeMs(id: string): number {
  const time = id.slice(id.indexOf('_') + 1, id.indexOf('_') + 11);
  let t = 0;
  for (const ch of time) t = t * 32 + ALPHABET.indexOf(ch);
  return t;
}
