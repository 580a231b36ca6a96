import { AsyncLocalStorage } from 'node:async_hooks';
import { Prisma, type PrismaClient } from '../generated/prisma/client.ts';

/**
 * Recovery points for idempotent mutations (Stripe's "atomic phases"). While a mutation runs
 * under an Idempotency-Key, every transaction it opens writes, inside itself just before it
 * commits, its result into the key's record (`steps`, state `committed`): a committed mutation
 * therefore always leaves what replays it, even when the request's final write of the answer
 * is lost (a dropped connection after the commit).
 *
 * A retry of such a record runs the mutation again in replay mode: its first transactions
 * return their recorded results without touching the database, so the resolver builds the same
 * answer about the same resource and nothing runs twice; a transaction past the recorded ones
 * (one that never committed) runs for real and becomes the next step.
 *
 * Each step commits only while the claim is still the caller's (`claimToken`) and the record
 * holds exactly the steps before it, so two runners of one key never both commit a step.
 */
export interface Claim {
  accountId: string;
  credentialId: string;
  key: string;
  token: string;
  /** Encoded results of the steps already committed, opened (replay returns them in order). */
  recorded: unknown[];
  /** What a step's encoded result is stored as: sealed, for a step's result can carry a secret. */
  seal(encoded: unknown): unknown;
  /** Index of the mutation's next transaction. */
  next: number;
  /** Set once the mutation's execution ended: work it left behind (timers) records nothing. */
  closed: boolean;
}

export const claimScope = new AsyncLocalStorage<Claim>();
/**
 * Runs `fn` outside any request's claim: background work woken from inside a request (the
 * embedded database delivers a commit's notification in the committing request's context)
 * must not record its transactions as the request's steps.
 */
export function outsideClaims<T>(fn: () => T): T {
  return claimScope.exit(fn);
}

/** Inside a transaction already recorded (nested `$transaction` calls are part of its step). */
const insideStep = new AsyncLocalStorage<true>();

/** The claim's record no longer accepts this step: another request took the key over. */
export class ClaimLostError extends Error {
  constructor() {
    super('Another request with this Idempotency-Key took it over.');
  }
}

const MARK_SQL = `UPDATE "IdempotencyRecord" SET "state" = 'committed', "steps" = COALESCE("steps", '[]'::jsonb) || jsonb_build_array($3::jsonb)
  WHERE "accountId" = $1::uuid AND "credentialId" = $6 AND "key" = $2 AND "claimToken" = $4 AND jsonb_array_length(COALESCE("steps", '[]'::jsonb)) = $5`;

type Callback = (tx: unknown) => Promise<unknown>;
type Transaction = (arg: Callback | unknown[], options?: unknown) => Promise<unknown>;

/** Each client withRecoveryPoints made, and the client it was made from. */
const BENEATH = new WeakMap<object, PrismaClient>();

/**
 * The client whose `$transaction` (interactive and batch) records a step while a claim is in
 * scope; without one it is Prisma's own. The override runs the transaction through the client
 * it extends (Prisma's `$parent`), so the transaction client it hands out carries every
 * extension beneath it: a client is therefore extended beneath its recovery points
 * (extendBeneathRecoveryPoints), never over them.
 */
export function withRecoveryPoints(prisma: PrismaClient): PrismaClient {
  const recovered = prisma.$extends({
    name: 'recovery-points',
    client: {
      $transaction(arg: Callback | unknown[], options?: unknown): Promise<unknown> {
        const parent = Prisma.getExtensionContext(this).$parent as PrismaClient;
        if (BENEATH.has(parent))
          throw new Error('A client was extended over its recovery points: use extendBeneathRecoveryPoints.');
        const transaction = parent.$transaction.bind(parent) as Transaction;
        const claim = claimScope.getStore();
        if (!claim || claim.closed || insideStep.getStore()) return transaction(arg, options);
        const index = claim.next++;
        if (index < claim.recorded.length)
          return isBatchStep(claim.recorded[index])
            ? transaction(arg, options)
            : Promise.resolve(decode(claim.recorded[index]));
        const mark = (client: PrismaClient, result: unknown) =>
          client.$executeRawUnsafe(
            MARK_SQL,
            claim.accountId,
            claim.key,
            JSON.stringify(claim.seal(encode(result))),
            claim.token,
            index,
            claim.credentialId,
          );
        if (typeof arg === 'function') {
          return transaction(
            (tx) =>
              insideStep.run(true, async () => {
                const result = await arg(tx);
                if ((await mark(tx as PrismaClient, result)) !== 1) throw new ClaimLostError();
                return result;
              }),
            options,
          );
        }
        // A batch's results are known only once it committed: its step records only that it did,
        // and a replay runs it again. Batches here are conditional updates (revocations), so the
        // second run changes nothing; it answers what a repeated call answers.
        return (transaction([...arg, mark(parent, BATCH_STEP)], options) as Promise<unknown[]>).then((results) => {
          if (results.at(-1) !== 1) throw new ClaimLostError();
          return results.slice(0, -1);
        });
      },
    },
  }) as unknown as PrismaClient;
  BENEATH.set(recovered, prisma);
  return recovered;
}

/**
 * `extend` applied to the client beneath `prisma`'s recovery points, with the recovery points
 * over the result (a client without them is extended as it is): the tenant and clock clients.
 */
export function extendBeneathRecoveryPoints(
  prisma: PrismaClient,
  extend: (client: PrismaClient) => PrismaClient,
): PrismaClient {
  const beneath = BENEATH.get(prisma);
  return beneath ? withRecoveryPoints(extend(beneath)) : extend(prisma);
}

const BATCH_STEP = { $batch: 1 };
const isBatchStep = (step: unknown) => !!step && typeof step === 'object' && '$batch' in step;

/** JSON that keeps what a transaction returns (rows: dates, bigints, bytes) through the database. */
export function encode(value: unknown): unknown {
  if (value === undefined) return { $u: 1 };
  if (value instanceof Date) return { $d: value.toISOString() };
  if (typeof value === 'bigint') return { $b: value.toString() };
  if (value instanceof Uint8Array) return { $x: Buffer.from(value).toString('base64') };
  if (Array.isArray(value)) return value.map(encode);
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) if (v !== undefined) out[k] = encode(v);
    return TAGS.some((t) => t in out) ? { $o: out } : out;
  }
  return value;
}

const TAGS = ['$u', '$d', '$b', '$x', '$o'];

export function decode(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(decode);
  if (!value || typeof value !== 'object') return value;
  const v = value as Record<string, unknown>;
  if ('$u' in v) return undefined;
  if ('$d' in v) return new Date(v.$d as string);
  if ('$b' in v) return BigInt(v.$b as string);
  if ('$x' in v) return Buffer.from(v.$x as string, 'base64');
  const fields = ('$o' in v ? v.$o : v) as Record<string, unknown>;
  return Object.fromEntries(Object.entries(fields).map(([k, x]) => [k, decode(x)]));
}
