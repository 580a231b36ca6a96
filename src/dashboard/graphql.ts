import { initGraphQLTada } from 'gql.tada';
import type { introspection } from './graphql-env.d.ts';

/**
 * The console's GraphQL documents: `graphql(`query { … }`)` is parsed at run time and typed by
 * tsc against the schema (gql.tada reads graphql-env.d.ts, which `npm run print-schema` writes
 * from the schema), so a misspelt field, a wrong argument or a variable of the wrong type fails
 * the typecheck, and the result's and variables' types come from the document.
 */
export const graphql = initGraphQLTada<{
  introspection: introspection;
  disableMasking: true;
  scalars: { DateTime: string; JSON: Record<string, unknown> };
}>();

export type { ResultOf, TadaDocumentNode, VariablesOf } from 'gql.tada';
