import { getDatamodel } from '../generated/pothos-types.ts';
import type { PrismaClient } from '../generated/prisma/client.ts';
import { extendBeneathRecoveryPoints } from './recovery.ts';

/**
 * Models that belong to an account: every model with an `accountId` column, read from the
 * generated datamodel so a new model is tenant-scoped the moment it has the column.
 */
const TENANT_MODELS = new Set(
  Object.entries(getDatamodel().datamodel.models)
    .filter(([, model]) => model.fields.some((f) => f.name === 'accountId' && f.kind === 'scalar'))
    .map(([name]) => name),
);

const FILTERED = new Set([
  'findUnique',
  'findUniqueOrThrow',
  'findFirst',
  'findFirstOrThrow',
  'findMany',
  'count',
  'aggregate',
  'groupBy',
  'update',
  'updateMany',
  'updateManyAndReturn',
  'delete',
  'deleteMany',
  'upsert',
]);
const CREATES = new Set(['create', 'createMany', 'createManyAndReturn']);

/** What the scoping reads of an operation's arguments. */
interface OperationArgs {
  where?: object;
  create?: object;
  data?: object | object[];
}

function scope(args: OperationArgs | undefined, accountId: string, model: string) {
  const key = model === 'Account' ? 'id' : 'accountId';
  return { ...args, where: { ...(args?.where ?? {}), [key]: accountId } };
}

function withAccount(data: object | object[] | undefined, accountId: string) {
  return Array.isArray(data) ? data.map((d) => ({ ...d, accountId })) : { ...data, accountId };
}

/**
 * A client that can only see and touch one account's rows: every read, update and delete
 * on a tenant model gets `accountId = <account>` added to its filter, and every create
 * gets the column set. Another account's row therefore reads as missing (404), by
 * construction rather than by each query remembering a `where`.
 */
export function tenantClient(prisma: PrismaClient, accountId: string): TenantDb {
  let clients = TENANT_CLIENTS.get(prisma);
  if (!clients) {
    clients = new Map();
    TENANT_CLIENTS.set(prisma, clients);
  }
  const cached = clients.get(accountId);
  if (cached) {
    // Most recently used last, so the first entry is the one to drop.
    clients.delete(accountId);
    clients.set(accountId, cached);
    return cached;
  }
  const client = extendBeneathRecoveryPoints(
    prisma,
    (beneath) =>
      beneath.$extends({
        name: 'tenant',
        query: {
          $allModels: {
            async $allOperations({ model, operation, args, query }) {
              if (model !== 'Account' && !TENANT_MODELS.has(model)) return query(args);
              if (FILTERED.has(operation)) {
                const scoped = scope(args, accountId, model);
                if (operation === 'upsert') scoped.create = withAccount((args as OperationArgs).create, accountId);
                return query(scoped);
              }
              if (CREATES.has(operation)) {
                if (model === 'Account') throw new Error('Accounts are created by the operator API only.');
                return query({ ...args, data: withAccount((args as OperationArgs).data, accountId) });
              }
              return query(args);
            },
          },
        },
      }) as unknown as PrismaClient,
  ) as TenantDb;
  TENANT_OF.set(client, { accountId, raw: RAW_READS.get(prisma) });
  clients.set(accountId, client);
  if (clients.size > TENANT_CLIENTS_KEPT) clients.delete(clients.keys().next().value!);
  return client;
}

/**
 * Tenant clients kept per Prisma client, most recently used: making one (Prisma's `$extends`)
 * costs more than a cached read, and a client holds nothing but its account id.
 */
const TENANT_CLIENTS_KEPT = 1000;
const TENANT_CLIENTS = new WeakMap<PrismaClient, Map<string, TenantDb>>();

declare const TENANT_SCOPED: unique symbol;

/**
 * A client scoped to one account (tenantClient): the same methods as a PrismaClient, branded so
 * that the type checker refuses the unscoped client (or a transaction's) where a tenant-scoped
 * one is expected. The brand is a type only: nothing at run time carries it.
 */
export type TenantDb = PrismaClient & { readonly [TENANT_SCOPED]: true };

/** Runs a statement on the database's driver, below Prisma: rows as the driver parses them (json columns as values). */
export interface RawReads {
  rows(sql: string, values: unknown[]): Promise<Record<string, unknown>[]>;
}

const RAW_READS = new WeakMap<PrismaClient, RawReads>();

/** The database's direct reads for tenant statements on `prisma`'s tenant clients (db/client.ts registers them). */
export function registerRawReads(prisma: PrismaClient, reads: RawReads): void {
  RAW_READS.set(prisma, reads);
}

/** The direct reads registered for `prisma`, for a client extended from it (timestamps.ts). */
export function rawReadsOf(prisma: PrismaClient): RawReads | undefined {
  return RAW_READS.get(prisma);
}

/** The account each tenant client was made for (hand-written statements take it from here, never from a caller), and its database's direct reads. */
const TENANT_OF = new WeakMap<object, { accountId: string; raw?: RawReads }>();

/** A hand-written read whose `$1` is the account: every table it reads is filtered on it in the text. */
export interface TenantStatement {
  readonly sql: string;
}

/** Declares a tenant statement; refuses one whose text does not filter on `"accountId" = $1`. */
export function tenantStatement(sql: string): TenantStatement {
  if (!/"accountId" = \$1(::uuid)?\b/.test(sql)) throw new Error('A tenant statement filters on "accountId" = $1.');
  return { sql };
}

/**
 * Runs a tenant statement on a tenant client's account (`$1`), `params` from `$2` on: the same
 * tenancy by construction as the client's model queries. Any other client (the unscoped one, a
 * transaction's) is refused, so such a read cannot run without an account or for another.
 */
export function tenantRows<T>(db: TenantDb, statement: TenantStatement, ...params: unknown[]): Promise<T[]> {
  const tenant = TENANT_OF.get(db);
  if (!tenant) throw new Error('A tenant statement runs on a tenant client only.');
  // On the driver directly where the database offers it: the rows are JSON built in SQL, and
  // Prisma's raw-query path (parameter and result serialisation) would only copy them again.
  if (tenant.raw) return tenant.raw.rows(statement.sql, [tenant.accountId, ...params]) as Promise<T[]>;
  return db.$queryRawUnsafe<T[]>(statement.sql, tenant.accountId, ...params);
}
