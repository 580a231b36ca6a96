import { createHash, randomUUID } from 'node:crypto';
import { getOperationAST, GraphQLError, print, type ExecutionResult } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { seal, unseal } from '../../core/sealed.ts';
import { claimScope, type Claim } from '../../db/recovery.ts';
import { ApiError, apiErrorOf, badRequest, IDEMPOTENCY_KEY_BUSY, IDEMPOTENCY_KEY_REUSED } from '../../errors.ts';
import type { RequestContext } from '../../schema/context.ts';
import { InputRuleRefusal } from '../../schema/input-rules.ts';
import { honoursIdempotencyKey } from '../../schema/operation.ts';
import { rootOperations } from './root-operations.ts';

/** How long a key is remembered (spec: 24 hours), on the simulated clock. */
export const IDEMPOTENCY_WINDOW_MS = 24 * 60 * 60 * 1000;
export const IDEMPOTENCY_KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;

/**
 * Idempotency-Key on every POST mutation (Stripe's rule, honoursIdempotencyKey): the first request
 * with a key runs and its result is stored; a repeat within 24 h gets the stored result
 * (same status, same body, `Idempotent-Replayed: true`) without running again; the same key
 * with other arguments → 422; while the first is still running (its lease, seconds, not over) → 409.
 * Keys are per credential: a record belongs to the credential that sent the key, and another
 * credential's request with that key is judged as if there were none (it runs after
 * authorization, plugins/authorize.ts, so a credential without the scope is refused first).
 * A refusal decided before the operation ran (401, 403, 429, an input rule's 400) and a server
 * error (5xx) keep no result, so the client can retry; but once a transaction of the mutation
 * committed, its recorded step (written in that transaction) makes the retry replay it rather
 * than run it twice. Results and steps are stored sealed with the app's key: an answer can carry
 * a secret (a root password, a terminal token, a signing secret).
 * It works on the execution, so REST, GraphQL and MCP behave the same.
 */
export function useIdempotency(): Plugin<RequestContext> {
  return {
    async onExecute({ args, setResultAndStopExecution, executeFn, setExecuteFn }) {
      const ctx = args.contextValue as RequestContext;
      const key = ctx.request.headers.get('idempotency-key');
      if (key === null || !ctx.principal) return;
      if (getOperationAST(args.document, args.operationName)?.operation !== 'mutation') return;
      if (!rootOperations(args).some((m) => honoursIdempotencyKey(m, 'mutation'))) return;
      if (!IDEMPOTENCY_KEY_PATTERN.test(key)) {
        setResultAndStopExecution({
          errors: [badRequest('Idempotency-Key must be 1 to 255 visible ASCII characters.', 'Idempotency-Key')],
        });
        return;
      }
      const { prisma, clock, config, webhookSecretKey } = ctx.app;
      const { accountId, credentialId } = ctx.principal;
      const sealing = sealingFor(webhookSecretKey, { accountId, credentialId, key });
      const fingerprint = createHash('sha256')
        .update(print(args.document))
        .update('\0')
        .update(stableJson(args.variableValues ?? {}))
        .digest('hex');

      const outcome = await claim(prisma, sealing, {
        accountId,
        credentialId,
        key,
        fingerprint,
        now: clock.now(),
        leaseMs: config.idempotencyLeaseMs,
      });
      if (outcome.kind === 'mismatch') {
        setResultAndStopExecution({
          errors: [
            IDEMPOTENCY_KEY_REUSED.error('This Idempotency-Key was already used with different request parameters.'),
          ],
        });
        return;
      }
      if (outcome.kind === 'busy') {
        setResultAndStopExecution({
          errors: [
            IDEMPOTENCY_KEY_BUSY.error('A request with this Idempotency-Key is still being processed; retry later.'),
          ],
        });
        return;
      }
      if (outcome.kind === 'stored') {
        ctx.responseHeaders.set('Idempotent-Replayed', 'true');
        setResultAndStopExecution(revive(sealing.open(outcome.result) as StoredResult));
        return;
      }
      // Runs the mutation with its transactions recording their steps; a record whose steps
      // committed (its answer lost) runs again in replay mode: the same answer, nothing twice.
      const running = outcome.claim;
      if (running.recorded.length) ctx.responseHeaders.set('Idempotent-Replayed', 'true');
      setExecuteFn((execArgs) => claimScope.run(running, () => executeFn(execArgs)));
      return {
        async onExecuteDone({ result }) {
          running.closed = true;
          const single = result as ExecutionResult;
          const mine = { accountId, credentialId, key, claimToken: running.token };
          const statuses = single.errors?.map((e) => apiErrorOf(e)?.status ?? 500) ?? [];
          // Stripe's rule: a request refused before the operation ran keeps no result either.
          const refusedBeforeRunning = !!single.errors?.length && single.errors.every(refusedBeforeItRan);
          if (refusedBeforeRunning || statuses.some((s) => s >= 500)) {
            // Nothing committed: free the key so the retry runs. A committed step stays, so the retry replays it.
            const freeing = prisma.idempotencyRecord.deleteMany({ where: { ...mine, state: 'in_progress' } });
            // With the database away (503) the answer does not wait on it: the claim's lease frees the key.
            if (statuses.includes(503)) freeing.catch(() => undefined);
            else await freeing;
          } else {
            await prisma.idempotencyRecord.updateMany({
              where: mine,
              data: { state: 'completed', result: sealing.seal(single) },
            });
          }
        },
      };
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
/** Refusals decided before an operation runs: no credential, no scope, a rate limit, an input rule. */
function refusedBeforeItRan(error: unknown): boolean {
  const api = apiErrorOf(error);
  return !!api && (api instanceof InputRuleRefusal || api.status === 401 || api.status === 403 || api.status === 429);
}

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

function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(',')}]`;
  if (value && typeof value === 'object') {
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${stableJson((value as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
