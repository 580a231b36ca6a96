import {
  getNamedType,
  getNullableType,
  isListType,
  isObjectType,
  type GraphQLField,
  type GraphQLObjectType,
  type GraphQLType,
} from 'graphql';
import { describe, expect, it } from 'vitest';
import { getSchema } from '../../src/schema/index.ts';

// The Relay Cursor Connections check (https://relay.dev/graphql/connections.htm) over the live
// schema: every type named `*Connection` is a connection, and every field returning one pages.

const schema = getSchema();
const types = Object.values(schema.getTypeMap()).filter((t) => !t.name.startsWith('__'));
const connections = types.filter((t) => t.name.endsWith('Connection'));

/** `type` printed as SDL writes it (`[ServerEdge!]!`). */
const sdl = (type: GraphQLType) => String(type);

/** The problems of one `*Connection` type, in words. */
function connectionProblems(type: GraphQLObjectType): string[] {
  const problems: string[] = [];
  const fields = type.getFields();
  const edges = fields.edges;
  if (!edges) problems.push('has no edges field');
  else {
    const list = getNullableType(edges.type);
    const edge = getNamedType(edges.type);
    if (!isListType(list)) problems.push(`edges is ${sdl(edges.type)}, not a list`);
    if (!isObjectType(edge) || !edge.name.endsWith('Edge')) problems.push(`edges lists ${edge.name}, not an *Edge`);
    else {
      const edgeFields = edge.getFields();
      if (!edgeFields.node) problems.push(`${edge.name} has no node`);
      const cursor = edgeFields.cursor;
      if (!cursor || sdl(cursor.type) !== 'String!') problems.push(`${edge.name}.cursor is not String!`);
    }
  }
  const pageInfo = fields.pageInfo;
  if (!pageInfo || sdl(pageInfo.type) !== 'PageInfo!') problems.push('has no pageInfo: PageInfo!');
  return problems;
}

/** The problems of a field that returns a connection: `first`/`after`, and `before` beside `last`. */
function pagingProblems(field: GraphQLField<unknown, unknown>): string[] {
  const args = new Map(field.args.map((a) => [a.name, sdl(a.type)]));
  const problems: string[] = [];
  for (const [name, type] of [
    ['first', 'Int'],
    ['after', 'String'],
  ])
    if (args.get(name) !== type) problems.push(`takes no ${name}: ${type}`);
  if (args.has('last') && args.get('before') !== 'String') problems.push('takes last but no before: String');
  if (args.has('before') && args.get('last') !== 'Int') problems.push('takes before but no last: Int');
  return problems;
}

describe('the live schema passes a Relay Cursor Connections check', () => {
  it('PageInfo has hasNextPage and hasPreviousPage (Boolean!), startCursor and endCursor (String)', () => {
    const pageInfo = schema.getType('PageInfo');
    expect(isObjectType(pageInfo)).toBe(true);
    const fields = (pageInfo as GraphQLObjectType).getFields();
    expect(
      Object.fromEntries(
        ['hasNextPage', 'hasPreviousPage', 'startCursor', 'endCursor'].map((f) => [
          f,
          fields[f] && sdl(fields[f].type),
        ]),
      ),
    ).toEqual({ hasNextPage: 'Boolean!', hasPreviousPage: 'Boolean!', startCursor: 'String', endCursor: 'String' });
  });

  it('every type named *Connection has edges of an *Edge (node, cursor: String!) and pageInfo: PageInfo!', () => {
    expect(connections.length).toBeGreaterThan(20);
    const problems = connections.flatMap((type) =>
      isObjectType(type)
        ? connectionProblems(type).map((p) => `${type.name} ${p}`)
        : [`${type.name} is not an object type`],
    );
    expect(problems).toEqual([]);
  });

  it('every field returning a *Connection takes first/after, and before where it takes last', () => {
    const problems: string[] = [];
    let fields = 0;
    for (const type of types) {
      if (!isObjectType(type)) continue;
      for (const field of Object.values(type.getFields())) {
        const returns = getNamedType(field.type);
        if (!returns.name.endsWith('Connection')) continue;
        fields++;
        problems.push(...pagingProblems(field).map((p) => `${type.name}.${field.name} ${p}`));
      }
    }
    expect(fields).toBeGreaterThan(30);
    expect(problems).toEqual([]);
  });

  it("every connection's edges list and its items are non-null", () => {
    // builder.ts edgesFieldOptions: a client reads `edges[i].node` without a null check.
    const nullable = connections.filter((t) => {
      const edges = isObjectType(t) ? t.getFields().edges : undefined;
      return edges && !/^\[\w+!\]!$/.test(sdl(edges.type));
    });
    expect(nullable.map((t) => t.name)).toEqual([]);
  });

  it('no root list is a page envelope ({ data, hasMore }): every list is a connection', () => {
    const root = schema.getQueryType()!.getFields();
    const pages = Object.values(root)
      .filter((f) => {
        const type = getNamedType(f.type);
        return isObjectType(type) && type.getFields().data && type.getFields().hasMore;
      })
      .map((f) => `${f.name}: ${getNamedType(f.type).name}`);
    expect(pages).toEqual([]);
  });
});
