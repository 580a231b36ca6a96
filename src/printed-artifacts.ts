import { printSchema } from 'graphql';
import { buildOpenApi } from './http/rest/openapi.ts';
import { mcpToolsArtifact } from './mcp/artifact.ts';
import { getPrintableSchema, getSchema } from './schema/index.ts';
import { printRestProjections } from './schema/rest-projection.ts';
import { restView } from './schema/rest-view.ts';

/** The artifacts printed under schema/, by file name. */
export async function printedArtifacts(): Promise<Record<string, string>> {
  return {
    'schema/schema.graphql': `${printSchema(getPrintableSchema())}\n`,
    'schema/openapi.json': `${JSON.stringify(buildOpenApi(restView(getSchema())), null, 2)}\n`,
    'schema/rest-projections.graphql': await printRestProjections(getSchema()),
    'schema/mcp-tools.json': `${JSON.stringify(mcpToolsArtifact(getSchema()), null, 2)}\n`,
  };
}
