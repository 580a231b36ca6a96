import {
  ErrorCode,
  type CallToolResult,
  type Resource,
  type ResourceLink,
  type ResourceTemplate,
} from '@modelcontextprotocol/sdk/types.js';
import { getNamedType, isNonNullType } from 'graphql';
import type { Tool } from './catalog.ts';
import type { HandlerContext, Register } from './handlers.ts';
import { perCatalog, scopesKey } from './per-catalog.ts';
import { untrustedMeta } from './untrusted.ts';
import { protocolError } from './protocol-errors.ts';

/**
 * The account's state as MCP resources: every read of the API that needs nothing beyond its path
 * is a resource whose URI is its REST path under this scheme (`cloud-account:///v1/servers`,
 * `cloud-account:///v1/servers/{id}`), and reading one answers the REST body. Reads run as the
 * same tools do (the runner given: scopes first, then the one executor), so a resource shows
 * exactly what the tool would.
 */
const RESOURCE_SCHEME = 'cloud-account';
const PREFIX = `${RESOURCE_SCHEME}:///v1`;
/** MCP's "resource not found" (specification: Resources, Error Handling). */
const RESOURCE_NOT_FOUND = -32002;
/** At most this many ids are offered for one completion (the specification's own cap), from a page of this size. */
const COMPLETIONS = 100;

interface AccountResource {
  tool: Tool;
  /** The REST path relative to /v1, `:name` for each parameter. */
  path: string;
  /** The URI, or the URI template (RFC 6570, `{name}`) when the path has parameters. */
  uri: string;
  pattern: RegExp;
  /**
   * What an event's data names when it may have changed this resource (updatedResources): every
   * event, or the id of the resource's item (`serverId` for `/servers`, `/servers/:id/…`), or nothing.
   */
  changedBy: 'every event' | `${string}Id` | null;
}

/** Runs a tool's operation for the caller, authorization first, as tools/call does. */
export type ResourceRunner = (
  tool: Tool,
  args: Record<string, unknown>,
  context: HandlerContext,
) => Promise<CallToolResult>;

const byCatalog = new WeakMap<readonly Tool[], AccountResource[]>();

/** The catalogue's reads that take nothing but their path parameters. */
function resourcesOf(catalog: readonly Tool[]): AccountResource[] {
  let resources = byCatalog.get(catalog);
  if (!resources) {
    resources = catalog
      .filter(({ operation: op }) => op.kind === 'query' && op.method === 'GET')
      .filter(({ operation: op }) =>
        op.field.args.every(
          (a) => op.pathParams.includes(a.name) || !isNonNullType(a.type) || a.defaultValue !== undefined,
        ),
      )
      .map((tool) => {
        const { path } = tool.operation;
        const uri = `${PREFIX}${path.replace(/:(\w+)/g, '{$1}')}`;
        const pattern = new RegExp(`^${literal(PREFIX)}${literal(path).replace(/:(\w+)/g, '(?<$1>[^/?#]+)')}$`);
        return { tool, path, uri, pattern, changedBy: changedBy(path) };
      });
    byCatalog.set(catalog, resources);
  }
  return resources;
}

/** The one-item resources by the type they answer: `Server` → `/servers/:id`. */
const byType = new WeakMap<readonly Tool[], Map<string, AccountResource>>();

/**
 * A link to the resource a tool's answer is (MCP `resource_link`): an order's server, a paid
 * invoice, a created ticket, when its type is what a `/<collection>/:id` resource reads. None
 * for the resource's own read, for lists, or for an answer without an id.
 */
export function resourceLinkOf(catalog: readonly Tool[], tool: Tool, value: unknown): ResourceLink | undefined {
  let items = byType.get(catalog);
  if (!items) {
    items = new Map(
      resourcesOf(catalog)
        .filter((r) => /^(\/[a-z-]+)+\/:id$/.test(r.path))
        .map((r) => [getNamedType(r.tool.operation.field.type).name, r]),
    );
    byType.set(catalog, items);
  }
  const item = items.get(getNamedType(tool.operation.field.type).name);
  const id = (value as { id?: unknown } | null)?.id;
  if (!item || item.tool === tool || typeof id !== 'string') return undefined;
  return {
    type: 'resource_link',
    uri: item.uri.replace('{id}', encodeURIComponent(id)),
    name: item.tool.name,
    title: item.tool.title,
    mimeType: 'application/json',
  };
}

const literal = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * The URIs of the resources a scope set may read that an event of the account may have changed
 * (`notifications/resources/updated`, resource-updates.ts): each resource under `/<things>/:id`
 * whose id the event's data names as `<thing>Id` (`serverId` → `/servers/{id}` and its
 * sub-resources), each list of such things (`/servers`), and the account's summary and event
 * history, which every event changes. Said of what may have changed: a client reads it again.
 */
export function updatedResources(
  catalog: readonly Tool[],
  scopes: ReadonlySet<string>,
  data: Record<string, unknown>,
  /** A live change (a state move no event reports) leaves the event history as it was. */
  logged: boolean,
): string[] {
  const uris: string[] = [];
  for (const r of offeredResources(catalog, scopes).allowed) {
    if (r.changedBy === 'every event') {
      if (logged || r.path !== EVENT_HISTORY) uris.push(r.uri);
    } else if (r.changedBy) {
      const id = data[r.changedBy];
      if (typeof id === 'string')
        uris.push(r.path.includes(':id') ? r.uri.replace('{id}', encodeURIComponent(id)) : r.uri);
    }
  }
  return uris;
}

const EVENT_HISTORY = '/events';

/** A resource path's `changedBy`: the account's summary and history change with every event; a collection's with its items'. */
function changedBy(path: string): AccountResource['changedBy'] {
  if (path === '/account/summary' || path === EVENT_HISTORY) return 'every event';
  const collection = /^(?:\/[a-z-]+)*\/([a-z-]+)(?:\/:id(?:\/[a-z-]+)*)?$/.exec(path)?.[1];
  // `servers` → `serverId`, `hosting` → `hostingId`: the item, as event data names it.
  return collection ? `${collection.replace(/s$/, '')}Id` : null;
}

/** The resources a scope set may list and read, made once per set. */
const offeredResources = perCatalog(scopesKey, (catalog, scopes: ReadonlySet<string>) => {
  const allowed = resourcesOf(catalog).filter((r) => scopes.has(r.tool.scope));
  const described = (r: AccountResource) => ({
    name: r.tool.name,
    title: r.tool.title,
    description: r.tool.description,
    mimeType: 'application/json',
  });
  const fixed: Resource[] = allowed.filter((r) => !r.path.includes(':')).map((r) => ({ uri: r.uri, ...described(r) }));
  const templates: ResourceTemplate[] = allowed
    .filter((r) => r.path.includes(':'))
    .map((r) => ({ uriTemplate: r.uri, ...described(r) }));
  return { allowed, fixed, templates };
});

/**
 * Adds resources and id completion to `server`: listed and read as the credential's scopes
 * allow (a resource outside them is neither listed nor readable).
 */
export function serveResources(
  register: Register,
  catalog: readonly Tool[],
  scopes: ReadonlySet<string>,
  run: ResourceRunner,
): void {
  const { allowed, fixed, templates } = offeredResources(catalog, scopes);

  register('resources/list', async () => ({ resources: fixed }));
  register('resources/templates/list', async () => ({ resourceTemplates: templates }));

  register('resources/read', async (params, context) => {
    const { uri } = params;
    for (const resource of allowed) {
      const match = resource.pattern.exec(uri);
      if (!match) continue;
      const args = Object.fromEntries(Object.entries(match.groups ?? {}).map(([k, v]) => [k, decoded(v, uri)]));
      const text = answerOf(await run(resource.tool, args, context), uri);
      // The body is the value itself, never `{ result }`: its paths start at the root.
      const paths = resource.tool.untrusted.map((p) => (resource.tool.wrapsResult ? p.replace(/^\$\.result/, '$') : p));
      return { contents: [{ uri, mimeType: 'application/json', text, ...untrustedMeta(paths) }] };
    }
    throw protocolError(
      RESOURCE_NOT_FOUND,
      `No resource ${uri}: resources/list and resources/templates/list name them.`,
      {
        uri,
      },
    );
  });

  register('completion/complete', async (params, handlerContext) => {
    const { ref, argument, context } = params;
    const none = { completion: { values: [], hasMore: false } };
    if (ref.type !== 'ref/resource') return none;
    const template = allowed.find((r) => r.uri === ref.uri);
    if (!template) return none;
    // The ids of the list one level up: `/servers/:id` completes from `/servers`, and
    // `/webhooks/:id/deliveries/:deliveryId`'s deliveryId from `/webhooks/:id/deliveries`.
    const at = template.path.indexOf(`:${argument.name}`);
    const list = at > 1 ? allowed.find((r) => r.path === template.path.slice(0, at - 1)) : undefined;
    if (!list) return none;
    const given = context?.arguments ?? {};
    const ids = Object.fromEntries(list.tool.operation.pathParams.map((p) => [p, given[p]]));
    if (Object.values(ids).some((v) => typeof v !== 'string')) return none;
    const page = list.tool.operation.argumentNames.has('limit') ? { limit: COMPLETIONS } : {};
    const result = await run(list.tool, { ...ids, ...page }, handlerContext);
    if (result.isError) return none;
    const rows = (result.structuredContent as { data?: { id?: unknown }[] } | undefined)?.data ?? [];
    const values = rows
      .map((row) => row.id)
      .filter((id): id is string => typeof id === 'string' && id.startsWith(argument.value));
    return { completion: { values: values.slice(0, COMPLETIONS), hasMore: values.length > COMPLETIONS } };
  });
}

function decoded(segment: string, uri: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw protocolError(ErrorCode.InvalidParams, `${uri} is not a valid URI: a %-escape is malformed.`, { uri });
  }
}

/** The REST body a read answered, or its refusal as a JSON-RPC error carrying the REST error object. */
function answerOf(result: CallToolResult, uri: string): string {
  const text = result.content[0]?.type === 'text' ? result.content[0].text : '';
  if (!result.isError) return text;
  const body = result.structuredContent as { statusCode?: number; message?: string } | undefined;
  const status = body?.statusCode ?? 500;
  const code =
    status === 404
      ? RESOURCE_NOT_FOUND
      : status === 400
        ? ErrorCode.InvalidParams
        : status >= 500
          ? ErrorCode.InternalError
          : ErrorCode.InvalidRequest;
  throw protocolError(code, body?.message ?? `Reading ${uri} failed.`, { uri, ...body });
}
