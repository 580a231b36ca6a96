import { AsyncLocalStorage } from 'node:async_hooks';
import type { Logger } from 'pino';

/** The request a piece of code runs for, so deep code can log with its request id. */
export interface RequestScope {
  requestId: string;
  log: Logger;
  /** Operation name for metrics (REST field name, GraphQL operation name, or the path kind). */
  operation: string;
}

export const requestScope = new AsyncLocalStorage<RequestScope>();
