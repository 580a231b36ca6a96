import type { ArgBuilder, ArgumentRef, ObjectRef, RootFieldBuilder } from '@pothos/core';
import type { GraphQLResolveInfo } from 'graphql';
import { builder, type Types } from './builder.ts';
import type { RequestContext } from './context.ts';
import { withSentence, type OperationOptions } from './operation.ts';
import { connectionOfPage, pageForConnection, type Connection } from './graph.ts';
import { offsetConnectionArgs, wholeListConnection, type OffsetArgs } from './offset-connections.ts';
import { pageArgs } from './pagination.ts';
import { isRestOperation } from './rest-projection.ts';
import type { Page, PageArgs } from '../core/paging.ts';

/**
 * The two shapes most operations take, declared in one call each: a paged list, and an
 * operation on one resource named by the `:id` of its path. Anything else declares its field
 * with `builder.queryField`/`mutationField` and its area's `...op({...})` directly.
 */

/** What every paged list says of its envelope, once (the operation's description ends with it; MCP says it in its instructions: src/mcp/conventions.ts). */
export const PAGED_SENTENCE = ' A page of the list envelope; follow nextCursor while hasMore.';

/** The same for GraphQL, where the list is a connection. */
const CONNECTION_SENTENCE = ' A connection; follow pageInfo.endCursor while pageInfo.hasNextPage.';

/**
 * A paged list operation, newest first: `first`/`after` (REST's `limit`/`cursor`, plus any `args`
 * of its own, such as the parent's id), the item's connection `type` (REST's list envelope), and
 * the paging sentence after its description.
 */
export function pagedListQuery<Args extends Record<string, unknown> = Record<string, never>>(declaration: {
  /** The GraphQL field. */
  name: string;
  type: ObjectRef<Types, Connection<unknown>>;
  /** The service call for one page. */
  list: (ctx: RequestContext, args: PageArgs & Args, info: GraphQLResolveInfo) => Promise<Page<unknown>>;
  /** `op({...})` of its area (operationsOf). */
  operation: OperationOptions;
  /** Its own arguments besides the page's. */
  args?: (t: { arg: ArgBuilder<Types> }) => Record<string, ArgumentRef<Types, unknown>>;
}): void {
  const { name, type, list, operation: options, args } = declaration;
  builder.queryField(name, (t) =>
    t.field({
      ...withSentence(options, CONNECTION_SENTENCE),
      restDescription: withSentence(options, PAGED_SENTENCE).description,
      type,
      args: { ...args?.(t), ...pageArgs(t) },
      resolve: (_root, values, ctx, info) =>
        pagedList(
          values,
          info,
          (page) => list(ctx, { ...values, ...page } as PageArgs & Args, info) as Promise<Page<{ id: string }>>,
        ),
    }),
  );
}

/** The same for a list answered whole: GraphQL may page it, REST has no paging arguments. */
const WHOLE_SENTENCE =
  ' A connection, the whole list unless first or last asks for a page; follow pageInfo.endCursor while pageInfo.hasNextPage.';

/**
 * A list its service answers whole (bounded by nature: a server's snapshots, a pool's
 * addresses…): REST answers it whole, its envelope with `hasMore` false; GraphQL has it as
 * plugin-relay's array connection of the item's connection `type`, with `first`/`after` and
 * `last`/`before` of its own (offset-connections.ts).
 */
export function wholeListQuery<Args extends Record<string, unknown> = Record<string, never>>(declaration: {
  /** The GraphQL field. */
  name: string;
  type: ObjectRef<Types, Connection<unknown>>;
  /** The service call for the whole list. */
  list: (ctx: RequestContext, args: Args, info: GraphQLResolveInfo) => Promise<readonly unknown[]>;
  /** `op({...})` of its area (operationsOf). */
  operation: OperationOptions;
  /** Its own arguments (the parent's id). */
  args?: (t: { arg: ArgBuilder<Types> }) => Record<string, ArgumentRef<Types, unknown>>;
}): void {
  const { name, type, list, operation: options, args } = declaration;
  builder.queryField(name, (t) =>
    t.field({
      ...withSentence(options, WHOLE_SENTENCE),
      restDescription: options.description,
      type,
      args: { ...args?.(t), ...offsetConnectionArgs(t, 'all') },
      resolve: async (_root, values, ctx, info) =>
        wholeListConnection(values as OffsetArgs, await list(ctx, values as unknown as Args, info)),
    }),
  );
}

/**
 * A root list's page as a connection: `first`/`after` are the service's `limit`/`cursor`, and a
 * refused cursor is named `after`, except in an operation's REST projection, where it is `cursor`.
 */
export async function pagedList<T extends { id: string | number }>(
  args: { first?: number | null; after?: string | null },
  info: GraphQLResolveInfo,
  read: (page: PageArgs) => Promise<Page<T>>,
): Promise<Connection<T>> {
  // A service may refuse the cursor before it returns its promise.
  const reading = (async () => read({ limit: args.first, cursor: args.after }))();
  const page = await pageForConnection(reading, isRestOperation(info.operation));
  return connectionOfPage(page, undefined, args.after);
}

/**
 * An operation whose only argument is the `id` of the resource in its path (get, delete, an
 * action).
 */
export function idOperation(declaration: {
  root: 'query' | 'mutation';
  /** The GraphQL field. */
  name: string;
  type: ObjectRef<Types, unknown>;
  /** The `id` argument's description. */
  idDescription: string;
  /** The service call. */
  run: (ctx: RequestContext, id: string) => Promise<unknown>;
  /** `op({...})` of its area (operationsOf), or an area's wrapper of it. */
  operation: OperationOptions;
  /** REST answers the type's detail form (rest-name.ts). */
  restDetail?: boolean;
}): void {
  const { root, name, type, idDescription, run, operation: options, restDetail = false } = declaration;
  const field = (t: RootFieldBuilder<Types, Types['Root'], 'Query' | 'Mutation'>) =>
    t.field({
      ...options,
      ...(restDetail ? { restDetail } : {}),
      type,
      args: { id: t.arg.id({ required: true, description: idDescription }) },
      resolve: (_root: unknown, args: { id: string }, ctx: RequestContext) => run(ctx, args.id),
    });
  if (root === 'query') builder.queryField(name, field);
  else builder.mutationField(name, field);
}
