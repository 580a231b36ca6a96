import { createHash, randomUUID } from 'node:crypto';
import { GraphQLError, type ExecutionResult } from 'graphql';
import type { App } from '../../app-services.ts';
import { seal, unseal } from '../../core/sealed.ts';
import { type Claim, claimScope } from '../../db/recovery.ts';
import { ApiError } from '../../errors.ts';

/** How long a key is remembered (spec: 24 hours), on the simulated clock. */
export const IDEMPOTENCY_WINDOW_MS = 24 * 60 * 60 * 1000;
export const IDEMPOTENCY_KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;

/** Who sent the key, and what it was sent with: the record belongs to the credential. */
export interface KeyedRequest {
  accountId: string;
  credentialId: string;
  key: string;
  /** The request's operation (its printed document) and variables: the same key with others is refused. */
  document: string;
  variables: Record<string, unknown>;
}

/** What a keyed request finds: its key's record claimed for this run, the stored answer, or a refusal. */
export type KeyClaim =
  | { kind: 'mismatch' }
  | { kind: 'busy' }
  | { kind: 'stored'; result: ExecutionResult }
  | {
      kind: 'run';
      /** A record whose steps committed (its answer lost) runs again in replay mode: the same answer, nothing twice. */
      replaying: boolean;
      /** Runs the operation with its transactions recording their steps under the key (db/recovery.ts). */
      within<T>(run: () => Promise<T>): Promise<T>;
      /**
       * Completes the record with the answer (sealed), or, with `keep: false` (a refusal decided
       * before the operation ran, a server error), frees the key for a retry; a committed step
       * stays, so the retry replays it.
       */
      remember(result: ExecutionResult, keep: boolean): Promise<void>;
    };

/**
 * Idempotency-Key (Stripe's rule): the first request with a key claims a record (with a lease,
 * seconds, on the wall clock) and runs; a repeat within 24 h finds the stored answer; the same
 * key with other arguments is a mismatch; while the first still runs, busy. Records belong to
 * the credential that sent the key. Results and steps are stored sealed with the app's key: an
 * answer can carry a secret (a root password, a terminal token, a signing secret).
 */
export async function claimKey(app: App, request: KeyedRequest): Promise<KeyClaim> {
  const { accountId, credentialId, key } = request;
  const sealing = sealingFor(app.webhookSecretKey, { accountId, credentialId, key });
  const fingerprint = createHash('sha256')
    .update(request.document)
    .update('\0')
    .update(stableJson(request.variables))
    .digest('hex');
  const outcome = await claim(app.prisma, sealing, {
    accountId,
    credentialId,
    key,
    fingerprint,
    now: app.clock.now(),
    leaseMs: app.config.idempotencyLeaseMs,
  });
  if (outcome.kind !== 'run')
    return outcome.kind === 'stored'
      ? { kind: 'stored', result: revive(sealing.open(outcome.result) as StoredResult) }
      : outcome;
  const running = outcome.claim;
  const mine = { accountId, credentialId, key, claimToken: running.token };
  return {
    kind: 'run',
    replaying: running.recorded.length > 0,
    within: (run) => claimScope.run(running, run),
    async remember(result, keep) {
      running.closed = true;
      if (!keep) {
        const freeing = app.prisma.idempotencyRecord.deleteMany({ where: { ...mine, state: 'in_progress' } });
        // With the database away (503) the answer does not wait on it: the claim's lease frees the key.
        if (result.errors?.some((e) => (e as { extensions?: { status?: number } }).extensions?.status === 503))
          freeing.catch(() => undefined);
        else await freeing;
      } else {
        await app.prisma.idempotencyRecord.updateMany({
          where: mine,
          data: { state: 'completed', result: sealing.seal(result) },
        });
      }
    },
  };
}

type Stored = {
  fingerprint: string;
  state: string;
  result: unknown;
  steps: unknown;
  claimToken: string | null;
  leaseUntil: Date | null;
  expiresAt: Date;
};
type StoredResult = {
  data?: Record<string, unknown> | null;
  errors?: { message: string; path?: (string | number)[]; extensions?: Record<string, unknown> & { field?: string } }[];
};
/** A record's result and steps, sealed with the app's key and bound to the record they belong to. */
interface Sealing {
  seal(value: unknown): string;
  open(stored: unknown): unknown;
}

function sealingFor(appKey: Buffer, record: { accountId: string; credentialId: string; key: string }): Sealing {
  const belongsTo = `idempotency:${record.accountId}:${record.credentialId}:${record.key}`;
  return {
    seal: (value) => seal(appKey, belongsTo, JSON.stringify(value)),
    open: (stored) => JSON.parse(unseal(appKey, belongsTo, stored as string)),
  };
}

type Outcome =
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
async function claim(
  prisma: App['prisma'],
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
function revive(stored: StoredResult): ExecutionResult {
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

/** JSON with object keys sorted: the same value always prints the same. */
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
