import { lexicographicSortSchema, type GraphQLSchema } from 'graphql';
import { builder } from './builder.ts';
// Each area registers its types and operations on the builder.
import '../modules/account/schema.ts';
import '../modules/servers/schema.ts';
import '../modules/pools/schema.ts';
import '../modules/hosting/schema.ts';
import '../modules/webhooks/schema.ts';
import '../modules/mail/schema.ts';
import '../modules/domains/schema.ts';
import '../modules/billing/schema.ts';
import '../modules/tickets/schema.ts';
import '../events/schema.ts';

let built: GraphQLSchema | undefined;

/** The one schema every transport serves. Built once per process. */
export function getSchema(): GraphQLSchema {
  built ??= builder.toSchema();
  return built;
}

/** The schema with types sorted, as printed to schema/schema.graphql. */
export function getPrintableSchema(): GraphQLSchema {
  return lexicographicSortSchema(getSchema());
}
