import type { Logger } from 'pino';
import type { Principal } from '../modules/auth/service.ts';
import { tenantClient, type TenantDb } from '../db/tenant.ts';
import type { App } from '../app-services.ts';

/** What every resolver receives. Built per call by `requestContext` (below). */
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
  /**
   * Set when the call comes from an MCP client (a tool or code mode): the authorize stage applies
   * MCP's exclusions, the confirm stage asks a person before a tool spends or destroys.
   */
  mcp?: { readOnly: boolean; confirm?: McpConfirm };
  /** The request's Idempotency-Key (a header, or an MCP tool's argument); null when none was sent. */
  idempotencyKey: string | null;
}

/**
 * How an MCP tool call gets a person's yes (src/http/executor/stages/confirm.ts): the confirmation
 * token sent with it, or a question to the person through the client (elicitation), when it can ask.
 */
export interface McpConfirm {
  token?: string;
  /** `unavailable`: the client could not ask (no elicitation, no answer in time): the call gets a token instead. */
  ask?(message: string): Promise<'accept' | 'decline' | 'cancel' | 'unavailable'>;
}

const NO_ACCOUNT = '00000000-0000-0000-0000-000000000000';

/** What a surface knows of a call before it runs: the caller and what the answer carries. */
export type Caller = Omit<RequestContext, 'db'>;

/**
 * What every resolver receives: the caller, and its account's database, opened on first use.
 * Without a principal the client is scoped to an account that cannot exist, so it fails closed
 * (the executor's authorize stage and scope-auth refuse such fields before they resolve anyway).
 */
export function requestContext(caller: Caller): RequestContext {
  let db: TenantDb | undefined;
  return {
    ...caller,
    get db() {
      db ??= tenantClient(caller.app.prisma, caller.principal?.accountId ?? NO_ACCOUNT);
      return db;
    },
  };
}
