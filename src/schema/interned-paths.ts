import {
  getNamedType,
  isCompositeType,
  isObjectType,
  type GraphQLFieldResolver,
  type GraphQLResolveInfo,
  type GraphQLSchema,
  type ResponsePath,
} from 'graphql';

/**
 * graphql-jit hands each resolver a response path built afresh for that call, one new object
 * per link up to the root. The Prisma plugin memoises a path's string and its row mappings on
 * the path objects (WeakMaps), so on a list it rebuilt every relation's path string from the root,
 * row after row (bench/README.md: Read path).
 * Fields whose values are objects (relations among them: the fields the plugin plans and loads)
 * get one interned link per (parent link, key) instead, the sharing graphql-js itself gives, and
 * the same links every time the same operation runs, so the plugin's memo of each link's string
 * outlives the request. Their resolvers are given their own `info` with that path (the engine's
 * is left as it is); a link holds the same key, parent and type name as the engine's.
 */
export function withInternedObjectPaths(schema: GraphQLSchema): GraphQLSchema {
  for (const type of Object.values(schema.getTypeMap())) {
    if (!isObjectType(type) || type.name.startsWith('__')) continue;
    for (const field of Object.values(type.getFields())) {
      if (!field.resolve || !isCompositeType(getNamedType(field.type))) continue;
      field.resolve = internPaths(field.resolve);
    }
  }
  return schema;
}

function internPaths(resolve: GraphQLFieldResolver<unknown, object>): GraphQLFieldResolver<unknown, object> {
  return (parent, args, context, info) =>
    resolve(parent, args, context, { ...info, path: internerOf(info).intern(info.path) });
}

type Key = string | number;

class PathInterner {
  private readonly roots = new Map<Key, ResponsePath>();
  private readonly children = new Map<ResponsePath, Map<Key, ResponsePath>>();

  intern(path: ResponsePath): ResponsePath {
    const prev = path.prev && this.intern(path.prev);
    let siblings = prev ? this.children.get(prev) : this.roots;
    if (!siblings) {
      siblings = new Map();
      this.children.set(prev!, siblings);
    }
    let link = siblings.get(path.key);
    if (!link) {
      link = { prev, key: path.key, typename: path.typename };
      siblings.set(path.key, link);
    }
    return link;
  }
}

const interners = new WeakMap<object, PathInterner>();

/**
 * A link may name one field execution per request context only: the Prisma plugin keeps its
 * row mappings per context, by link. A query or mutation executes once in its context, so
 * all executions of one operation (yoga's parse cache and sofa hand the same document to
 * every request) share its interner, bounded by the document and the lengths of its lists.
 * A subscription executes once per event in the same context, so each of its executions gets
 * its own: both engines coerce the variables into a new object for every execution, so that
 * object stands for the execution.
 */
function internerOf(info: GraphQLResolveInfo): PathInterner {
  const owner = info.operation.operation === 'subscription' ? info.variableValues : info.operation;
  let interner = interners.get(owner);
  if (!interner) {
    interner = new PathInterner();
    interners.set(owner, interner);
  }
  return interner;
}
