import { randomUUID } from 'node:crypto';
import { GraphQLError, type ExecutionResult } from 'graphql';
import { seal, unseal } from '../../core/sealed.ts';
import type { Claim } from '../../db/recovery.ts';
import { ApiError, apiErrorOf } from '../../errors.ts';
import type { RequestContext } from '../../schema/context.ts';
import { InputRuleRefusal } from '../../schema/input-rules.ts';

/** How long a key is remembered (spec: 24 hours), on the simulated clock. */
export const IDEMPOTENCY_WINDOW_MS = 24 * 60 * 60 * 1000;
export const IDEMPOTENCY_KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;

type Stored = {
  fingerprint: string;
  state: string;
  result: unknown;
  steps: unknown;
  claimToken: string | null;
  leaseUntil: Date | null;
  expiresAt: Date;
};
export type StoredResult = {
  data?: Record<string, unknown> | null;
  errors?: { message: string; path?: (string | number)[]; extensions?: Record<string, unknown> & { field?: string } }[];
};
/** Refusals decided before an operation runs: no credential, no scope, a rate limit, an input rule. */
export function refusedBeforeItRan(error: unknown): boolean {
  const api = apiErrorOf(error);
  return !!api && (api instanceof InputRuleRefusal || api.status === 401 || api.status === 403 || api.status === 429);
}

/** A record's result and steps, sealed with the app's key and bound to the record they belong to. */
export interface Sealing {
  seal(value: unknown): string;
  open(stored: unknown): unknown;
}

export function sealingFor(appKey: Buffer, record: { accountId: string; credentialId: string; key: string }): Sealing {
  const belongsTo = `idempotency:${record.accountId}:${record.credentialId}:${record.key}`;
  return {
    seal: (value) => seal(appKey, belongsTo, JSON.stringify(value)),
    open: (stored) => JSON.parse(unseal(appKey, belongsTo, stored as string)),
  };
}

export type Outcome =
  | { kind: 'run'; claim: Claim }
  | { kind: 'stored'; result: unknown }
  | { kind: 'mismatch' }
  | { kind: 'busy' };

/**
 * Claims the key for this request: a new in_progress record with a lease (wall clock: it bounds
 * how long a running request may hold the key), or the record of an earlier request that left
 * it: an in_progress one whose lease ran out (nothing of it committed), or a committed one
 * (replayed from its steps). Taking a record over gives it a new token, so a slow earlier
 * request can no longer commit under the key (src/db/recovery.ts).
 */
export async function claim(
  prisma: RequestContext['app']['prisma'],
  sealing: Sealing,
  c: { accountId: string; credentialId: string; key: string; fingerprint: string; now: Date; leaseMs: number },
): Promise<Outcome> {
  const { accountId, credentialId, key, fingerprint, now } = c;
  const record = { accountId, credentialId, key };
  for (let attempt = 0; attempt < 3; attempt++) {
    const token = randomUUID();
    const leaseUntil = new Date(Date.now() + c.leaseMs);
    const running = (recorded: unknown[]): Outcome => ({
      kind: 'run',
      claim: { ...record, token, recorded, seal: sealing.seal, next: 0, closed: false },
    });
    const { count } = await prisma.idempotencyRecord.createMany({
      data: [
        {
          ...record,
          fingerprint,
          state: 'in_progress',
          claimToken: token,
          leaseUntil,
          createdAt: now,
          expiresAt: new Date(now.getTime() + IDEMPOTENCY_WINDOW_MS),
        },
      ],
      skipDuplicates: true,
    });
    if (count === 1) return running([]);
    const existing: Stored | null = await prisma.idempotencyRecord.findUnique({
      where: { accountId_credentialId_key: record },
    });
    if (!existing) continue; // removed meanwhile (a failed first attempt): claim again
    if (existing.expiresAt <= now) {
      await prisma.idempotencyRecord.deleteMany({ where: { ...record, expiresAt: { lte: now } } });
      continue;
    }
    if (existing.fingerprint !== fingerprint) return { kind: 'mismatch' };
    if (existing.state === 'completed') return { kind: 'stored', result: existing.result };
    if (existing.state === 'in_progress' && existing.leaseUntil && existing.leaseUntil.getTime() > Date.now())
      return { kind: 'busy' };
    const taken = await prisma.idempotencyRecord.updateMany({
      where: { ...record, state: existing.state, claimToken: existing.claimToken },
      data: { claimToken: token, leaseUntil },
    });
    if (taken.count === 1)
      return running(
        existing.state === 'committed' && Array.isArray(existing.steps) ? existing.steps.map(sealing.open) : [],
      );
  }
  return { kind: 'busy' };
}

/** Rebuilds GraphQLErrors from stored JSON so a replayed error keeps its HTTP status. */
export function revive(stored: StoredResult): ExecutionResult {
  return {
    data: stored.data ?? undefined,
    ...(stored.errors
      ? {
          errors: stored.errors.map((e) => {
            const status = e.extensions?.status;
            return typeof status === 'number'
              ? new ApiError(status, e.message, { field: e.extensions?.field })
              : new GraphQLError(e.message, { path: e.path, extensions: e.extensions });
          }),
        }
      : {}),
  };
}

export function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(',')}]`;
  if (value && typeof value === 'object') {
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${stableJson((value as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
