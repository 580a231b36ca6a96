/**
 * `value` with every Date replaced by its instant and its ISO text, so a statement's rows
 * (whose timestamps are ReadDates, src/db/model-rows.ts) and Prisma's (plain Dates) compare
 * strictly: the same instants, and the text each will be written as.
 */
export function comparable(value: unknown): unknown {
  if (value instanceof Date) return { instant: value.getTime(), iso: value.toISOString() };
  if (Array.isArray(value)) return value.map(comparable);
  if (value && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype)
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, comparable(v)]));
  return value;
}
