import { tenantClient } from '../../db/tenant.ts';
import type { RequestContext } from '../../schema/context.ts';

const NO_ACCOUNT = '00000000-0000-0000-0000-000000000000';

/** What a surface knows of a call before it runs: the caller and what the answer carries. */
export type Caller = Omit<RequestContext, 'db'>;

/**
 * What every resolver receives: the caller, and its account's database, opened on first use.
 * Without a principal the client is scoped to an account that cannot exist, so it fails closed
 * (the authorize stage and scope-auth refuse such fields before they resolve anyway).
 */
export function requestContext(caller: Caller): RequestContext {
  let db: RequestContext['db'] | undefined;
  return {
    ...caller,
    get db() {
      db ??= tenantClient(caller.app.prisma, caller.principal?.accountId ?? NO_ACCOUNT);
      return db;
    },
  };
}
