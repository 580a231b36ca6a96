import type { IncomingMessage } from 'node:http';
import type { Readable } from 'node:stream';
import type { App } from '../app-services.ts';
import type { Refusal } from '../errors.ts';
import { tenantClient, type TenantDb } from '../db/tenant.ts';
import type { Scope } from '../scopes.ts';
import type { Principal } from '../modules/auth/service.ts';
import type { Area, HttpMethod } from './operation.ts';

/**
 * A binary stream operation (file upload, file and backup download): the only /v1 routes that
 * are not GraphQL fields (DESIGN.md). A module declares its own in its `binary.ts` and answers
 * with a result; src/http/rest/binary-routes.ts authenticates, checks the scope and the query string
 * exactly like the schema's operations, and writes the result. The OpenAPI document and the
 * coverage test read the same declarations.
 */
export interface BinaryRoute {
  method: HttpMethod;
  /** Path relative to /v1, exactly as in the spec. */
  path: `/${string}`;
  scope: Scope;
  /** Its area: the manifest of the runtime that hands it in (defineRuntime), never declared by name. */
  area: Area;
  /** Names the route in logs, metrics and the OpenAPI document. */
  operationId: string;
  /** As an operation's (OperationMeta): a few words, then what it does, its rules and errors. */
  summary: string;
  description: string;
  /** Each `:param` of its path: its description, and the noun its example id is made for (`hosting` → `hst_…`). */
  params: Record<string, { description: string; noun?: string }>;
  query: { name: string; required: boolean; description: string; example: string }[];
  /** A multipart/form-data body with one file field. */
  upload?: { field: string; description: string };
  /** What it answers: the content types it can send (a download sends the type its file's name implies). */
  response: { contentTypes: readonly string[]; description: string };
  /** Its named refusals, as an operation's (OperationMeta.refuses). */
  refuses?: readonly Refusal[];
  handle(request: BinaryRequest): Promise<BinaryResult>;
}

/** What an area declares of a binary route: all but its area, which its runtime's manifest gives. */
export type BinaryRouteDeclaration = Omit<BinaryRoute, 'area'>;

export interface BinaryRequest {
  app: App;
  principal: Principal;
  /** The caller's account-scoped database. */
  db: TenantDb;
  /** The raw request: an upload reads its body as a stream. */
  req: IncomingMessage;
  params: Record<string, string>;
  query: URLSearchParams;
  /** The response will close the connection (a body left unread cannot be drained). */
  closeConnection(): void;
}

/** Runs a binary route for its caller, with the caller's account-scoped database (tenancy by construction). */
export function runBinaryRoute(route: BinaryRoute, request: Omit<BinaryRequest, 'db'>): Promise<BinaryResult> {
  return route.handle({ ...request, db: tenantClient(request.app.prisma, request.principal.accountId) });
}

/** What a binary operation answers: a file streamed as an attachment, or a JSON body. */
export type BinaryResult =
  | { kind: 'attachment'; file: { name: string; sizeBytes: number; open(): Readable }; contentType: string }
  | { kind: 'json'; status: number; body: unknown };
