import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { getNamedType, isObjectType, type GraphQLObjectType, type GraphQLSchema } from 'graphql';
import { ALL_SCOPES, type Scope } from '../../src/scopes.ts';
import type { TestApp } from '../helpers/app.ts';
import { mcpClient } from '../helpers/mcp.ts';

/** The scope matrix's inputs (scope-matrix.test.ts): its keys, the graph's edges, its MCP sessions. */

export interface ScopeSet {
  label: string;
  scopes: Scope[];
  key: string;
}

/** Keys of the account for each scope alone and for every scope but it (2 × 17 scope sets). */
export async function mintScopeSets(app: TestApp, accountId: string): Promise<ScopeSet[]> {
  const mint = async (scopes: Scope[]) => {
    const r = await app.admin('POST', `/admin/accounts/${accountId}/api-keys`, { scopes });
    if (r.status !== 201) throw new Error(r.text);
    return r.body.key as string;
  };
  const sets: ScopeSet[] = [];
  for (const scope of ALL_SCOPES) {
    sets.push({ label: `only ${scope}`, scopes: [scope], key: await mint([scope]) });
    const rest = ALL_SCOPES.filter((s) => s !== scope);
    sets.push({ label: `all but ${scope}`, scopes: rest, key: await mint(rest) });
  }
  return sets;
}

/** Every field of the schema declared with edge(), with the scope it needs. */
export function graphEdges(schema: GraphQLSchema) {
  return Object.values(schema.getTypeMap())
    .filter((t): t is GraphQLObjectType => isObjectType(t) && !t.name.startsWith('__'))
    .flatMap((type) =>
      Object.values(type.getFields())
        .filter((f) => f.extensions?.graphEdge)
        .map((field) => ({ type, field, scope: (field.extensions!.graphEdge as { scope: Scope }).scope })),
    );
}

/** The scope of the edge that reaches a type (or its connection): what an edge below it must need too. */
export const areaScope = (edges: ReturnType<typeof graphEdges>, typeName: string) =>
  edges.find(
    (e) => getNamedType(e.field.type).name === typeName || getNamedType(e.field.type).name === `${typeName}Connection`,
  )?.scope;

/** MCP sessions with every toolset, one per key, opened on first use; close() ends them all. */
export function mcpSessions() {
  const clients = new Map<string, Client>();
  return {
    async get(url: string, key: string) {
      let c = clients.get(key);
      if (!c) {
        c = await mcpClient(url, key, { 'X-MCP-Toolsets': 'all' });
        clients.set(key, c);
      }
      return c;
    },
    async close() {
      for (const c of clients.values()) await c.close();
    },
  };
}
