import { GraphQLList, GraphQLObjectType, GraphQLSchema, GraphQLString, parse, responsePathAsArray, type GraphQLResolveInfo } from 'graphql';
import { compileQuery, isCompiledQuery } from 'graphql-jit';
import { describe, expect, it } from 'vitest';
import { withInternedRelationPaths } from '../../src/schema/interned-paths.ts';

// graphql-jit builds a fresh response path for every resolver call; relation fields (those the
// Prisma plugin wraps, marked `pothosPrismaSelect`) must see one shared link per position per
// execution, as graphql-js gives, or the plugin's per-path memo misses on every row.

function schemaRecording(seen: GraphQLResolveInfo[]) {
  const record = (key: string) => (parent: Record<string, unknown>, _args: unknown, _ctx: unknown, info: GraphQLResolveInfo) => {
    seen.push(info);
    return parent[key];
  };
  const Item = new GraphQLObjectType({ name: 'Item', fields: { name: { type: GraphQLString } } });
  const Row = new GraphQLObjectType({
    name: 'Row',
    fields: {
      ips: { type: new GraphQLList(Item), resolve: record('ips'), extensions: { pothosPrismaSelect: {} } },
      snapshots: { type: new GraphQLList(Item), resolve: record('snapshots'), extensions: { pothosPrismaSelect: {} } },
      label: { type: GraphQLString, resolve: record('label') },
    },
  });
  const rows = [0, 1].map((i) => ({ label: `r${i}`, ips: [{ name: `ip${i}` }], snapshots: [{ name: `s${i}` }] }));
  return withInternedRelationPaths(new GraphQLSchema({ query: new GraphQLObjectType({ name: 'Query', fields: { rows: { type: new GraphQLList(Row), resolve: () => rows } } }) }));
}

describe('interned relation paths', () => {
  it('under graphql-jit, relation fields of one row share their parent links within an execution, never across executions', async () => {
    const seen: GraphQLResolveInfo[] = [];
    const compiled = compileQuery(schemaRecording(seen), parse('{ rows { label ips { name } snapshots { name } } }'));
    if (!isCompiledQuery(compiled)) throw new Error('did not compile');
    const first = await compiled.query({}, {}, {});
    expect(first).toEqual({ data: { rows: [0, 1].map((i) => ({ label: `r${i}`, ips: [{ name: `ip${i}` }], snapshots: [{ name: `s${i}` }] })) } });

    const byPath = (infos: GraphQLResolveInfo[], p: string) => infos.find((i) => responsePathAsArray(i.path).join('.') === p)!;
    const [ips0, snaps0, ips1, label0] = ['rows.0.ips', 'rows.0.snapshots', 'rows.1.ips', 'rows.0.label'].map((p) => byPath(seen, p));
    // Same row: the same link for `rows.0`, and the same `rows` link for every row.
    expect(ips0.path.prev).toBe(snaps0.path.prev);
    expect(ips0.path.prev).not.toBe(ips1.path.prev);
    expect(ips0.path.prev!.prev).toBe(ips1.path.prev!.prev);
    // Other fields keep graphql-jit's own path.
    expect(label0.path.prev).not.toBe(ips0.path.prev);

    const earlier = seen.length;
    await compiled.query({}, {}, {});
    const again = byPath(seen.slice(earlier), 'rows.0.ips');
    expect(responsePathAsArray(again.path)).toEqual(['rows', 0, 'ips']);
    expect(again.path.prev).not.toBe(ips0.path.prev);
  });
});
