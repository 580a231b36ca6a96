import { lexicographicSortSchema, type GraphQLSchema } from 'graphql';
import { builder } from './builder.ts';
import { withInternedObjectPaths } from './interned-paths.ts';
// Each area registers its types and operations on the builder: every module of src/modules/areas.ts
// that has a schema.ts, then every graph.ts. Static imports (the server is bundled, and the
// load order is this file's); test/spine/area-manifest.test.ts fails when one is missing or extra.
import '../modules/account/schema.ts';
import '../modules/servers/schema.ts';
import '../modules/pools/schema.ts';
import '../modules/hosting/schema.ts';
import '../modules/webhooks/schema.ts';
import '../modules/mail/schema.ts';
import '../modules/domains/schema.ts';
import '../modules/billing/schema.ts';
import '../modules/tickets/schema.ts';
import '../modules/events/schema.ts';
// The graph's edges between the areas (docs/REFERENCE.md: The graph), after every type they join.
import '../modules/servers/graph.ts';
import '../modules/pools/graph.ts';
import '../modules/hosting/graph.ts';
import '../modules/domains/graph.ts';
import '../modules/mail/graph.ts';
import '../modules/billing/graph.ts';
import '../modules/tickets/graph.ts';
import '../modules/webhooks/graph.ts';
import '../modules/account/graph.ts';

let built: GraphQLSchema | undefined;

/** The one schema every transport serves. Built once per process. */
export function getSchema(): GraphQLSchema {
  built ??= withInternedObjectPaths(builder.toSchema());
  return built;
}

/** The schema with types sorted, as printed to schema/schema.graphql. */
export function getPrintableSchema(): GraphQLSchema {
  return lexicographicSortSchema(getSchema());
}
