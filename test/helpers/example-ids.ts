import { argumentsExample } from '../../src/schema/examples.ts';
import type { Operation } from '../../src/schema/operation.ts';

// Driving every operation in a seeded account: the ids its answers hold are remembered by kind,
// and each operation's example arguments are sent with the example ids replaced by real ones.

const PREFIXED_ID = /^([a-z]+)_[0-9a-z]{26}$/;

/** Ids seen in an answer, the first of each prefix (`srv`). */
export function collectIds(value: unknown, into: Map<string, string>): void {
  if (typeof value === 'string') {
    const m = PREFIXED_ID.exec(value);
    if (m && !into.has(m[1])) into.set(m[1], value);
  } else if (Array.isArray(value)) {
    for (const v of value) collectIds(v, into);
  } else if (value && typeof value === 'object') {
    for (const v of Object.values(value)) collectIds(v, into);
  }
}

/** The operation's example arguments without `leaveOut`, each example id replaced by a real one of its kind. */
export function argumentsWithRealIds(
  op: Operation,
  ids: Map<string, string>,
  leaveOut: string[],
): Record<string, unknown> {
  const args = argumentsExample(op.field, op.path);
  for (const name of leaveOut) delete args[name];
  for (const [name, value] of Object.entries(args)) {
    const m = typeof value === 'string' ? PREFIXED_ID.exec(value) : null;
    if (m && ids.has(m[1])) args[name] = ids.get(m[1]);
  }
  return args;
}
