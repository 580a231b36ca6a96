import type { ClientApp } from './app.ts';

/** POST /graphql as a client would. */
export function gql(
  app: ClientApp,
  query: string,
  opts: { key?: string; variables?: Record<string, unknown>; headers?: Record<string, string> } = {},
) {
  return app.call('POST', '/graphql', {
    key: opts.key,
    body: { query, variables: opts.variables },
    headers: opts.headers,
  });
}
