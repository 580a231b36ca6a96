import type { Logger } from 'pino';
import type { Principal } from '../modules/auth/service.ts';
import type { TenantDb } from '../db/tenant.ts';
import type { App } from '../app-services.ts';

/** What every resolver receives. Built per call by src/http/operation/context.ts. */
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
  /** The request body as the HTTP layer read and parsed it (size limit, JSON, 415 and 400 done); undefined when empty. */
  jsonBody?: unknown;
  /** Set when the call comes from an MCP client (a tool or code mode): the authorize stage applies MCP's exclusions. */
  mcp?: { readOnly: boolean };
  /** The request's Idempotency-Key (a header, or an MCP tool's argument); null when none was sent. */
  idempotencyKey: string | null;
}
