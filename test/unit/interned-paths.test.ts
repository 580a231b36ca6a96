import {
  GraphQLList,
  GraphQLObjectType,
  GraphQLSchema,
  GraphQLString,
  parse,
  responsePathAsArray,
  type GraphQLResolveInfo,
} from 'graphql';
import { compileQuery, isCompiledQuery } from 'graphql-jit';
import { describe, expect, it } from 'vitest';
import { withInternedObjectPaths } from '../../src/schema/interned-paths.ts';

// graphql-jit builds a fresh response path for every resolver call; fields whose values are
// objects (the Prisma plugin's relations among them) must see one shared link per position, as
// graphql-js gives, or the plugin's per-path memo misses on every row: the same links in every
// execution of a query's document, and links of their own in each execution of a subscription
// (which runs once per event in one context, where the plugin keeps its mappings by link).

function schemaRecording(seen: GraphQLResolveInfo[]) {
  const record =
    (key: string) => (parent: Record<string, unknown>, _args: unknown, _ctx: unknown, info: GraphQLResolveInfo) => {
      seen.push(info);
      return parent[key];
    };
  const Item = new GraphQLObjectType({ name: 'Item', fields: { name: { type: GraphQLString } } });
  const Row = new GraphQLObjectType({
    name: 'Row',
    fields: {
      ips: { type: new GraphQLList(Item), resolve: record('ips') },
      snapshots: { type: new GraphQLList(Item), resolve: record('snapshots') },
      label: { type: GraphQLString, resolve: record('label') },
    },
  });
  const rows = [0, 1].map((i) => ({ label: `r${i}`, ips: [{ name: `ip${i}` }], snapshots: [{ name: `s${i}` }] }));
  return withInternedObjectPaths(
    new GraphQLSchema({
      query: new GraphQLObjectType({
        name: 'Query',
        fields: { rows: { type: new GraphQLList(Row), resolve: () => rows } },
      }),
    }),
  );
}

describe('interned object paths', () => {
  it('under graphql-jit, object fields of one row share their parent links, and a query keeps its links from one execution to the next', async () => {
    const seen: GraphQLResolveInfo[] = [];
    const compiled = compileQuery(schemaRecording(seen), parse('{ rows { label ips { name } snapshots { name } } }'));
    if (!isCompiledQuery(compiled)) throw new Error('did not compile');
    const first = await compiled.query({}, {}, {});
    expect(first).toEqual({
      data: {
        rows: [0, 1].map((i) => ({ label: `r${i}`, ips: [{ name: `ip${i}` }], snapshots: [{ name: `s${i}` }] })),
      },
    });

    const byPath = (infos: GraphQLResolveInfo[], p: string) =>
      infos.find((i) => responsePathAsArray(i.path).join('.') === p)!;
    const [ips0, snaps0, ips1, label0] = ['rows.0.ips', 'rows.0.snapshots', 'rows.1.ips', 'rows.0.label'].map((p) =>
      byPath(seen, p),
    );
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
    expect(again.path).toBe(ips0.path);
    // Another document with the same shape has links of its own.
    const other = compileQuery(schemaRecording(seen), parse('{ rows { ips { name } } }'));
    if (!isCompiledQuery(other)) throw new Error('did not compile');
    const before = seen.length;
    await other.query({}, {}, {});
    expect(byPath(seen.slice(before), 'rows.0.ips').path).not.toBe(ips0.path);
  });

  it('each execution of a subscription gets links of its own', () => {
    const seen: GraphQLResolveInfo[] = [];
    const ips = schemaRecording(seen).getType('Row') as GraphQLObjectType;
    const resolve = ips.getFields().ips.resolve!;
    const operation = parse('subscription { rows { ips { name } } }').definitions[0];
    const fresh = () => ({
      prev: { prev: { prev: undefined, key: 'rows', typename: 'Subscription' }, key: 0, typename: undefined },
      key: 'ips',
      typename: 'Row',
    });
    const execute = (variableValues: object) => {
      resolve({ ips: [] }, {}, {}, { operation, variableValues, path: fresh() } as unknown as GraphQLResolveInfo);
      return seen.at(-1)!.path;
    };
    const event = {};
    const first = execute(event);
    expect(execute(event)).toBe(first);
    expect(execute({})).not.toBe(first);
    expect(responsePathAsArray(first)).toEqual(['rows', 0, 'ips']);
  });
});
