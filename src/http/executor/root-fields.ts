import { Kind, getOperationAST, type DocumentNode, type GraphQLSchema, type SelectionSetNode } from 'graphql';
import type { OperationMeta } from '../../schema/operation.ts';

/**
 * The root fields with operation metadata in the operation a document runs. Fragments are
 * followed; @skip and @include are not evaluated, so a field that may run is listed.
 */
export function rootFields(
  schema: GraphQLSchema,
  document: DocumentNode,
  operationName?: string,
): { name: string; meta: OperationMeta }[] {
  const op = getOperationAST(document, operationName);
  if (!op) return [];
  const root =
    op.operation === 'mutation'
      ? schema.getMutationType()
      : op.operation === 'query'
        ? schema.getQueryType()
        : schema.getSubscriptionType();
  if (!root) return [];
  const fields = root.getFields();
  const fragments = new Map(
    document.definitions.flatMap((d) =>
      d.kind === Kind.FRAGMENT_DEFINITION ? [[d.name.value, d.selectionSet] as const] : [],
    ),
  );
  const found: { name: string; meta: OperationMeta }[] = [];
  const walk = (set: SelectionSetNode, seen: Set<string>) => {
    for (const sel of set.selections) {
      if (sel.kind === Kind.FIELD) {
        const meta = fields[sel.name.value]?.extensions?.operation as OperationMeta | undefined;
        if (meta) found.push({ name: sel.name.value, meta });
      } else if (sel.kind === Kind.INLINE_FRAGMENT) {
        walk(sel.selectionSet, seen);
      } else if (!seen.has(sel.name.value)) {
        seen.add(sel.name.value);
        const frag = fragments.get(sel.name.value);
        if (frag) walk(frag, seen);
      }
    }
  };
  walk(op.selectionSet, new Set());
  return found;
}
