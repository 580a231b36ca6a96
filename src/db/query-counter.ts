import type { SqlDriverAdapter, SqlDriverAdapterFactory, SqlQuery, Transaction } from '@prisma/driver-adapter-utils';

/**
 * Wraps a driver adapter factory so every SQL statement Prisma sends is reported to
 * `onQuery` — at the driver, below Prisma, so nothing is missed. Benchmarks and tests use it
 * to count statements (N+1 checks); production never installs it.
 */
export function countQueries<F extends SqlDriverAdapterFactory>(factory: F, onQuery: (sql: string) => void): F {
  const wrapQueryable = <
    T extends { queryRaw(q: SqlQuery): Promise<unknown>; executeRaw(q: SqlQuery): Promise<number> },
  >(
    target: T,
  ): T =>
    new Proxy(target, {
      get(obj, prop, receiver) {
        const value = Reflect.get(obj, prop, receiver);
        if (prop === 'queryRaw' || prop === 'executeRaw') {
          return (q: SqlQuery) => {
            onQuery(q.sql);
            return (value as (q: SqlQuery) => unknown).call(obj, q);
          };
        }
        if (prop === 'startTransaction') {
          return async (...args: unknown[]) =>
            wrapQueryable(await (value as (...a: unknown[]) => Promise<Transaction>).apply(obj, args));
        }
        return typeof value === 'function' ? value.bind(obj) : value;
      },
    });
  return new Proxy(factory, {
    get(obj, prop, receiver) {
      const value = Reflect.get(obj, prop, receiver);
      if (prop === 'connect')
        return async () => wrapQueryable(await (value as () => Promise<SqlDriverAdapter>).call(obj));
      return typeof value === 'function' ? value.bind(obj) : value;
    },
  });
}
