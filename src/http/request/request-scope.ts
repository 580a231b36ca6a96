import { AsyncLocalStorage } from 'node:async_hooks';
import type { Logger } from 'pino';
import type { Outages } from '../../db/outage.ts';

/** The request a piece of code runs for, so deep code can log with its request id. */
export interface RequestScope {
  requestId: string;
  log: Logger;
  /** Operation name for metrics (REST field name, GraphQL operation name, or the path kind). */
  operation: string;
  /** Where a failure that is a dependency's outage is counted instead of logged per request. */
  outages?: Outages;
}

export const requestScope = new AsyncLocalStorage<RequestScope>();
