import type { Logger } from 'pino';
import type { Principal } from '../modules/auth/service.ts';
import type { TenantDb } from '../db/tenant.ts';
import type { App } from '../app-services.ts';

/** What every resolver receives. Built per request by src/http/graphql.ts. */
export interface RequestContext {
  app: App;
  principal: Principal | null;
  /**
   * Long-lived transports (graphql-ws): the credential as it stands now, re-resolved from the
   * secret the connection presented (null once revoked, expired or ended).
   */
  currentPrincipal?: () => Promise<Principal | null>;
  /** The caller's account-scoped database (src/db/tenant.ts). Only valid once a principal is known. */
  db: TenantDb;
  requestId: string;
  log: Logger;
  /** Headers an execution-level concern wants on the HTTP response (rate limits, idempotent replays). */
  responseHeaders: Headers;
  /** For REST calls: the operation's variables, built strictly from path, query and body. */
  restVariables?: Record<string, unknown>;
  /** The request body as the HTTP layer read and parsed it (size limit, JSON, 415 and 400 done); undefined when empty. */
  jsonBody?: unknown;
  /** Set when the document comes from an MCP client (code mode): plugins/mcp-boundary.ts applies MCP's limits. */
  mcp?: { readOnly: boolean };
  /** The raw Request, for headers such as Idempotency-Key. */
  request: Request;
}
