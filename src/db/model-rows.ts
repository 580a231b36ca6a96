import { getDatamodel } from '../generated/pothos-types.ts';

type Shape = { dates: string[]; relations: [field: string, model: string][] };
const shapes = new Map<string, Shape>();

function shapeOf(model: string): Shape {
  let shape = shapes.get(model);
  if (!shape) {
    const fields = getDatamodel().datamodel.models[model]?.fields;
    if (!fields) throw new Error(`No model ${model}.`);
    shape = {
      dates: fields.filter((f) => f.kind === 'scalar' && f.type === 'DateTime').map((f) => f.name),
      relations: fields.filter((f) => f.kind === 'object').map((f) => [f.name, f.type]),
    };
    shapes.set(model, shape);
  }
  return shape;
}

/**
 * A model's row as a hand-written statement returns it in JSON (`row_to_json`, `json_agg` of
 * rows: timestamps as text), made what Prisma returns for the same row: every DateTime a Date,
 * in the row and in each relation it carries. Changes `row` in place and returns it.
 */
export function asModelRow<T>(model: string, row: Record<string, unknown>): T {
  const { dates, relations } = shapeOf(model);
  for (const name of dates) {
    const value = row[name];
    if (typeof value === 'string') row[name] = new Date(value);
  }
  for (const [name, related] of relations) {
    const value = row[name];
    if (Array.isArray(value)) for (const item of value) asModelRow(related, item);
    else if (value && typeof value === 'object') asModelRow(related, value as Record<string, unknown>);
  }
  return row as T;
}
