import { createHash } from 'node:crypto';
import { getOperationAST, GraphQLError, print, type ExecutionResult } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { ApiError, apiErrorOf, badRequest, conflict, unprocessable } from '../../errors.ts';
import type { RequestContext } from '../../schema/context.ts';
import { honoursIdempotencyKey } from '../../schema/operation.ts';
import { rootOperations } from './root-operations.ts';

/** How long a key is remembered (spec: 24 hours), on the simulated clock. */
export const IDEMPOTENCY_WINDOW_MS = 24 * 60 * 60 * 1000;
export const IDEMPOTENCY_KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;

/**
 * Idempotency-Key on every POST mutation (Stripe's rule, honoursIdempotencyKey): the first request
 * with a key runs and its result is stored; a repeat within 24 h gets the stored result
 * (same status, same body, `Idempotent-Replayed: true`) without running again; the same key
 * with other arguments → 422; while the first is still running → 409. Keys are per account.
 * Results that are server errors (5xx) are not kept, so the client can retry.
 * It works on the execution, so REST, GraphQL and MCP behave the same.
 */
export function useIdempotency(): Plugin<RequestContext> {
  return {
    async onExecute({ args, setResultAndStopExecution }) {
      const ctx = args.contextValue as RequestContext;
      const key = ctx.request.headers.get('idempotency-key');
      if (key === null || !ctx.principal) return;
      if (getOperationAST(args.document, args.operationName)?.operation !== 'mutation') return;
      if (!rootOperations(args).some((m) => honoursIdempotencyKey(m, 'mutation'))) return;
      if (!IDEMPOTENCY_KEY_PATTERN.test(key)) {
        setResultAndStopExecution({ errors: [badRequest('Idempotency-Key must be 1 to 255 visible ASCII characters.', 'Idempotency-Key')] });
        return;
      }
      const { prisma, clock } = ctx.app;
      const accountId = ctx.principal.accountId;
      const fingerprint = createHash('sha256').update(print(args.document)).update('\0').update(stableJson(args.variableValues ?? {})).digest('hex');
      const now = clock.now();

      const claimed = await claim(prisma, accountId, key, fingerprint, now);
      if (claimed !== true) {
        if (claimed.fingerprint !== fingerprint) {
          setResultAndStopExecution({ errors: [unprocessable('This Idempotency-Key was already used with different request parameters.')] });
        } else if (claimed.state !== 'completed') {
          setResultAndStopExecution({ errors: [conflict('A request with this Idempotency-Key is still being processed; retry later.')] });
        } else {
          ctx.responseHeaders.set('Idempotent-Replayed', 'true');
          setResultAndStopExecution(revive(claimed.result as StoredResult));
        }
        return;
      }
      return {
        async onExecuteDone({ result }) {
          const single = result as ExecutionResult;
          const serverError = single.errors?.some((e) => (apiErrorOf(e)?.status ?? 500) >= 500);
          if (serverError) {
            await prisma.idempotencyRecord.delete({ where: { accountId_key: { accountId, key } } });
          } else {
            await prisma.idempotencyRecord.update({
              where: { accountId_key: { accountId, key } },
              data: { state: 'completed', result: JSON.parse(JSON.stringify(single)) },
            });
          }
        },
      };
    },
  };
}

type Stored = { fingerprint: string; state: string; result: unknown };
type StoredResult = { data?: Record<string, unknown> | null; errors?: { message: string; path?: (string | number)[]; extensions?: Record<string, any> }[] };

/** Inserts an in-progress record, or returns the live one that holds the key. */
async function claim(prisma: RequestContext['app']['prisma'], accountId: string, key: string, fingerprint: string, now: Date): Promise<true | Stored> {
  for (let attempt = 0; attempt < 2; attempt++) {
    const { count } = await prisma.idempotencyRecord.createMany({
      data: [{ accountId, key, fingerprint, state: 'in_progress', createdAt: now, expiresAt: new Date(now.getTime() + IDEMPOTENCY_WINDOW_MS) }],
      skipDuplicates: true,
    });
    if (count === 1) return true;
    const existing = await prisma.idempotencyRecord.findUnique({ where: { accountId_key: { accountId, key } } });
    if (!existing) continue; // removed meanwhile (a failed first attempt): claim again
    if (existing.expiresAt > now) return existing;
    await prisma.idempotencyRecord.deleteMany({ where: { accountId, key, expiresAt: { lte: now } } });
  }
  return { fingerprint, state: 'in_progress', result: null };
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
    return `{${Object.keys(value).sort().map((k) => `${JSON.stringify(k)}:${stableJson((value as Record<string, unknown>)[k])}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
