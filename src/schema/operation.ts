import type { GraphQLArgument, GraphQLField, GraphQLSchema } from 'graphql';
import type { Refusal } from '../errors.ts';
import type { EventType } from '../events/catalog.ts';
import type { Area, ExtraToolset } from '../modules/areas.ts';
import type { Quote } from '../modules/billing/quotes.ts';
import type { ServiceContext } from '../modules/servers/server-row.ts';
import type { Scope } from '../scopes.ts';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** Areas of the API, from their manifests (src/modules/areas.ts); MCP toolsets and OpenAPI tags use them. */
export type { Area };

/** Rate-limit classes an operation can belong to on top of the per-credential limit. */
export const RATE_LIMIT_CLASSES = {
  poolIpApply: { points: 6, durationSeconds: 60, description: 'pool IP apply: 6 calls per minute per credential' },
  // Dashboard and OAuth (src/http/dashboard/dashboard.ts), not operations: guessing passwords and user codes.
  signInEmail: {
    points: 10,
    durationSeconds: 900,
    description: 'dashboard sign-in and sudo: 10 attempts per 15 minutes per e-mail address from one client address',
  },
  signInAddress: {
    points: 100,
    durationSeconds: 900,
    description: 'dashboard sign-in and sudo: 100 attempts per 15 minutes per client address',
  },
  passwordChange: {
    points: 10,
    durationSeconds: 900,
    description: 'password change: 10 attempts per 15 minutes per session',
  },
  userCodeAccount: {
    points: 20,
    durationSeconds: 900,
    description: 'device user-code entry: 20 per 15 minutes per account',
  },
  userCodeAddress: {
    points: 100,
    durationSeconds: 900,
    description: 'device user-code entry: 100 per 15 minutes per client address',
  },
  clientRegistration: {
    points: 20,
    durationSeconds: 3600,
    description: 'OAuth dynamic client registrations: 20 per hour per client address',
  },
  deviceAuthorization: {
    points: 30,
    durationSeconds: 900,
    description: 'OAuth device authorizations: 30 per 15 minutes per client address',
  },
  clientMetadataFetch: {
    points: 30,
    durationSeconds: 900,
    description: 'OAuth client metadata document fetches (not cached clients): 30 per 15 minutes per client address',
  },
} as const;
export type RateLimitClass = keyof typeof RATE_LIMIT_CLASSES;

/**
 * Everything about an operation besides its GraphQL shape, declared once on its field.
 * REST routes, OpenAPI, MCP tools, rate-limit classes, idempotency and the coverage test
 * all read it from the built schema (listOperations below); nothing keeps a second list.
 */
export interface OperationMeta {
  /** A few words, imperative, no full stop: the OpenAPI summary and the MCP tool title ("List servers"). */
  summary: string;
  /**
   * What it does, its rules, side effects and errors, for a person and an agent alike (keep it
   * lean: it is also what an agent reads). The GraphQL field description, the OpenAPI
   * description and the MCP tool description are this text (with the events sentence).
   */
  description: string;
  /** The events it records (src/events/catalog.ts); the description names them. */
  fires?: EventType[];
  scope: Scope;
  /** Method and path exactly as in the spec, relative to /v1: `GET /servers/:id`. */
  rest: `${HttpMethod} /${string}`;
  /** Its area: the manifest its declaration is bound to (operationsOf). */
  area: Area;
  /** MCP tool name (snake_case, area first): `servers_list`; derived from the field's name (tool-names.ts). */
  tool: string;
  /** The MCP toolset listing the tool when not its area's: one a manifest declares (`purchases`). */
  toolset?: ExtraToolset;
  rateLimit?: RateLimitClass;
  /** Arguments read from the query string even on a body method (e.g. upload's `path`). */
  queryArgs?: string[];
  /**
   * Why this operation is not an MCP tool (it exists for a person at a browser, or hands out
   * a credential). Recorded in schema/mcp-tools.json.
   */
  notTool?: string;
  /**
   * Who may call it beyond its scope: `password session` — only the console signed in with the
   * password; API keys, OAuth tokens and sessions from sign-in links get 403
   * PASSWORD_SIGN_IN_REQUIRED whatever their scopes (the account's password and sessions:
   * docs/SECURITY.md). Such an operation is no MCP tool and lists the refusal in `refuses`; its
   * service applies the rule (after the scope check, so a missing scope is still named).
   */
  caller?: 'password session';
  /**
   * It moves money or destroys data: MCP asks a person before it runs, with the price or the
   * loss in the question (src/http/executor/stages/confirm.ts; docs/REFERENCE.md: MCP,
   * Confirmation), and its tool is annotated `destructiveHint: true`. `spends(quote)` names the
   * quote function beside its service; `destroys('…')` says what is lost. Every DELETE and every
   * `servers:destroy` operation that is an MCP tool carries one.
   */
  consequence?: Consequence;
  /** Override of the MCP hints derived from method and scope (destructive comes from `consequence` only). */
  hints?: Partial<Omit<ToolHints, 'destructive'>>;
  /**
   * The named refusals (src/errors.ts `refusal`) the operation's service can answer: a 409 of a
   * state rule, a 413. Each is declared with its status and description in the OpenAPI document;
   * a rule shared by many operations (a hosting account still provisioning) is listed on each.
   */
  refuses?: readonly Refusal[];
  /**
   * It starts work that goes on after it answers (a provider job): the resource it answers is in
   * a `pending` state until the work settles. Over MCP (2025-11-25) its tool may run as a task
   * (src/mcp/tasks.ts): a handle at once, its status read from the resource until it settles.
   */
  settles?: Settles;
}

/** How the work an operation started is followed (OperationMeta.settles). */
interface Settles {
  /** The query field that reads the resource by its `id` (`server`). */
  read: string;
  /** Where the resource is in the operation's answer: a key of it (`server`); the answer itself when absent. */
  at?: string;
  /** The resource's `status` values while the work goes on. */
  pending: readonly string[];
}

/**
 * What an operation costs, for the person asked before an agent runs it: a spending operation's
 * quote (its service's own price computation, so the question cannot drift from the charge), or
 * a destroying operation's sentence of what is lost. Null when this call costs nothing (a server
 * started, auto-recharge turned off): it runs without asking.
 */
export interface Consequence {
  kind: 'spends' | 'destroys';
  /** With what a service reads of the call (a resolver's context is one), and the field's arguments (GraphQL names, coerced). */
  quote(context: ServiceContext, args: Record<string, unknown>): Promise<Quote | null> | Quote | null;
}

/** Moves money: `quote` is the service's quote function, beside the service function that charges. */
export function spends(quote: Consequence['quote']): Consequence {
  return { kind: 'spends', quote };
}

/**
 * Destroys data: `what` says what is lost, `{arg}` standing for an argument's value (or a
 * function of the arguments; null when this call loses nothing).
 */
export function destroys(what: string | ((args: Record<string, unknown>) => string | null)): Consequence {
  const sentence = typeof what === 'string' ? () => what : what;
  return {
    kind: 'destroys',
    quote(_context, args) {
      const text = sentence(args);
      if (text === null) return null;
      const message = text.replace(/\{(\w+)\}/g, (_, name: string) => String(args[name] ?? ''));
      return { message, terms: { message } };
    },
  };
}

interface ToolHints {
  readOnly: boolean;
  destructive: boolean;
  idempotent: boolean;
}

/**
 * Stripe's rule: every POST that creates or acts (every POST mutation) honours Idempotency-Key.
 * PUT and DELETE are idempotent by their nature, and reads change nothing.
 */
export function honoursIdempotencyKey(meta: OperationMeta, kind: 'query' | 'mutation'): boolean {
  return kind === 'mutation' && meta.rest.startsWith('POST ');
}

/**
 * Whether MCP offers the operation: the one exclusion list is `notTool` on the metadata. The
 * catalogue leaves such operations out, code mode's schema search hides them and every MCP
 * execution refuses them (src/http/executor/stages/authorize.ts).
 */
export function isMcpTool(meta: OperationMeta): boolean {
  return !meta.notTool;
}

/**
 * What an operation declares: its metadata but its area, which the manifest of its module gives
 * (operationsOf), and its MCP tool name, which its field's name gives (src/schema/tool-names.ts):
 * `serverSnapshotCreate` → `server_snapshot_create`, the area's first tool prefix put in front
 * when the name does not start with one of its prefixes (`sshKeyAdd` → `account_ssh_key_add`).
 */
export type OperationDeclaration = Omit<OperationMeta, 'area' | 'tool'> & {
  /** A read's verb, last in its tool's name: `list`, `get`, `status` (`serverSnapshots` → `server_snapshots_list`). */
  toolVerb?: string;
  /** The tool's name where the field's name does not give it (`poolCatalogue` → `pools_catalogue`). */
  tool?: string;
};

/** The metadata a field carries until the schema is built, when its tool is named (tool-names.ts). */
export type DeclaredMeta = OperationDeclaration & { area: Area };

/**
 * The operations of one area, bound to its manifest: `const op = operationsOf(serversArea)`, then
 * `...op({ summary, scope, rest, description })` spread into each field's options (the scope for
 * scope-auth, the description and the metadata), or handed to pagedListQuery and idOperation.
 */
export function operationsOf(manifest: { name: Area }) {
  return (declaration: OperationDeclaration) => operation({ ...declaration, area: manifest.name });
}

/** The options an operation's field spreads: what `op({...})` (operationsOf) returns. */
export type OperationOptions = ReturnType<typeof operation>;

/**
 * The same operation with a sentence after its description, before the events sentence (a paged
 * list's paging sentence): in the field's description and its metadata.
 */
export function withSentence(options: OperationOptions, sentence: string): OperationOptions {
  const meta = options.extensions.operation;
  return operation({ ...meta, description: meta.description + sentence });
}

/** The options a field spreads: the scope for scope-auth, the description and the metadata. */
function operation(meta: DeclaredMeta) {
  if (meta.caller && (!meta.notTool || !meta.refuses?.some((r) => r.code === 'PASSWORD_SIGN_IN_REQUIRED')))
    throw new Error(`${meta.rest}: a password-session operation is no MCP tool and refuses PASSWORD_SIGN_IN_REQUIRED`);
  if (!meta.consequence && !meta.notTool && (meta.rest.startsWith('DELETE ') || meta.scope === 'servers:destroy'))
    throw new Error(`${meta.rest}: a deletion or a servers:destroy operation declares its consequence (destroys)`);
  return {
    authScopes: { [meta.scope]: true } as Record<Scope, boolean>,
    description: operationDescription(meta),
    extensions: { operation: meta },
  };
}

/** The sentence that ends the description of an operation firing `fires` ('' for none). */
export function firesSentence(fires: readonly string[] | undefined): string {
  return fires?.length ? ` Fires ${fires.map((e) => `\`${e}\``).join(', ')}.` : '';
}

/** The one description of an operation: its text, then the events it fires. */
function operationDescription(meta: Pick<OperationMeta, 'description' | 'fires'>): string {
  return `${meta.description}${firesSentence(meta.fires)}`;
}

export interface Operation {
  /** GraphQL field name; also the REST route's operationId. */
  name: string;
  kind: 'query' | 'mutation';
  meta: OperationMeta;
  method: HttpMethod;
  /** Path relative to /v1 as in the spec (`/servers/:id`). */
  path: string;
  description: string;
  field: GraphQLField<unknown, unknown>;
  pathParams: string[];
  hints: ToolHints;
  /** Honours the Idempotency-Key header (honoursIdempotencyKey). */
  idempotencyKey: boolean;
  /** Its arguments' names: what a REST call's parameters and an MCP tool call's arguments may be. */
  argumentNames: ReadonlySet<string>;
  /** Where each argument travels over REST. */
  argLocation(arg: GraphQLArgument): 'path' | 'query' | 'body';
}

const BODY_METHODS = new Set<HttpMethod>(['POST', 'PUT', 'PATCH']);

/** Reads every operation declared in the schema, in declaration order. */
export function listOperations(schema: GraphQLSchema): Operation[] {
  const out: Operation[] = [];
  for (const [kind, type] of [
    ['query', schema.getQueryType()],
    ['mutation', schema.getMutationType()],
  ] as const) {
    if (!type) continue;
    for (const field of Object.values(type.getFields())) {
      const meta = field.extensions?.operation as OperationMeta | undefined;
      if (!meta) continue;
      if (meta.consequence && kind !== 'mutation') throw new Error(`${meta.rest}: only a mutation spends or destroys`);
      if (meta.settles && kind !== 'mutation')
        throw new Error(`${meta.rest}: only a mutation starts work that settles later`);
      const [method, path] = meta.rest.split(' ') as [HttpMethod, string];
      const pathParams = [...path.matchAll(/:([A-Za-z_][A-Za-z0-9_]*)/g)].map((m) => m[1]);
      out.push({
        name: field.name,
        kind,
        meta,
        method,
        path,
        description: field.description ?? '',
        field: field as GraphQLField<unknown, unknown>,
        pathParams,
        argumentNames: new Set(field.args.map((a) => a.name)),
        idempotencyKey: honoursIdempotencyKey(meta, kind),
        hints: {
          readOnly: kind === 'query' && method === 'GET' ? true : kind === 'query',
          // Where money or data goes (the tag), and only there: every other change is additive or a setting.
          destructive: !!meta.consequence,
          idempotent: kind === 'query' || method === 'GET' || method === 'PUT' || method === 'DELETE',
          ...meta.hints,
        },
        argLocation(arg) {
          if (pathParams.includes(arg.name)) return 'path';
          if (!BODY_METHODS.has(method) || meta.queryArgs?.includes(arg.name)) return 'query';
          return 'body';
        },
      });
    }
  }
  return out;
}
