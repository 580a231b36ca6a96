import { introspectionFromSchema, printSchema } from 'graphql';
import { minifyIntrospection, outputIntrospectionFile } from 'gql.tada/internal';
import { buildOpenApi } from './http/rest/openapi.ts';
import { mcpToolsArtifact } from './mcp/artifact.ts';
import { getPrintableSchema, getSchema } from './schema/index.ts';
import { printRestProjections } from './schema/rest-projection.ts';
import { restView } from './schema/rest-view.ts';

/** The console's schema types for gql.tada (src/dashboard/graphql.ts types its documents with them). */
const CONSOLE_SCHEMA_TYPES = 'src/dashboard/graphql-env.d.ts';

/** The artifacts printed from the one schema (under schema/, and the console's schema types), by file name. */
export async function printedArtifacts(): Promise<Record<string, string>> {
  return {
    'schema/schema.graphql': `${printSchema(getPrintableSchema())}\n`,
    'schema/openapi.json': `${JSON.stringify(buildOpenApi(restView(getSchema())), null, 2)}\n`,
    'schema/rest-projections.graphql': await printRestProjections(getSchema()),
    'schema/mcp-tools.json': `${JSON.stringify(mcpToolsArtifact(getSchema()), null, 2)}\n`,
    [CONSOLE_SCHEMA_TYPES]: outputIntrospectionFile(
      minifyIntrospection(introspectionFromSchema(getPrintableSchema())),
      {
        fileType: '.d.ts',
        shouldPreprocess: true,
        preamble:
          '/* The schema for gql.tada, written by `npm run print-schema`; test/printed-schema.test.ts fails when stale. */\n\n',
      },
    ),
  };
}
