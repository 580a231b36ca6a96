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
 * A timestamp read from a statement's JSON: a Date that keeps the API's ISO 8601 text of it,
 * made from the database's text without formatting it again. Writing a Date out
 * (`toISOString`, which the DateTime scalar calls for every timestamp of a page) costs more
 * than parsing it; this answers from the text.
 */
export class ReadDate extends Date {
  readonly #iso: string;
  constructor(instant: number, iso: string) {
    super(instant);
    this.#iso = iso;
  }
  override toISOString(): string {
    return this.#iso;
  }
}

/**
 * A timestamptz as PostgreSQL writes it in JSON (`2026-05-01T12:00:00.12+00:00`: UTC, up to
 * three fraction digits, trailing zeros dropped) as a Date. When the session's time zone is
 * UTC (PGlite's, and PostgreSQL's unless configured otherwise) the fields are read digit by
 * digit and the text becomes the API's form by padding alone; any other form is parsed as a
 * plain Date.
 */
export function readTimestamp(text: string): Date {
  const n = text.length;
  // Digits after the point: none (and no point) in 25 characters, up to three in 27 to 29.
  const fraction = n === 25 ? 0 : n - 26;
  const shaped =
    (n === 25 || (n >= 27 && n <= 29 && text[19] === '.')) &&
    text.endsWith('+00:00') &&
    text[4] === '-' &&
    text[7] === '-' &&
    text[10] === 'T' &&
    text[13] === ':' &&
    text[16] === ':';
  const year = shaped ? digits(text, 0, 4) : 0;
  // Date.UTC reads years 0-99 as 1900-1999.
  if (year < 100) return new Date(text);
  // Fraction digits as milliseconds: "5" is 500, "52" is 520.
  const ms = fraction > 0 ? digits(text, 20, fraction) * 10 ** (3 - fraction) : 0;
  const instant = Date.UTC(
    year,
    digits(text, 5, 2) - 1,
    digits(text, 8, 2),
    digits(text, 11, 2),
    digits(text, 14, 2),
    digits(text, 17, 2),
    ms,
  );
  return new ReadDate(
    instant,
    fraction > 0 ? `${text.slice(0, n - 6)}${'000'.slice(fraction)}Z` : `${text.slice(0, 19)}.000Z`,
  );
}

/** The number written in `count` decimal digits of `text` from `from`. */
function digits(text: string, from: number, count: number): number {
  let value = 0;
  for (let i = from; i < from + count; i++) value = value * 10 + text.charCodeAt(i) - 48;
  return value;
}

/**
 * A model's row as a hand-written statement returns it in JSON (`row_to_json`, `json_agg` of
 * rows: timestamps as text), made what Prisma returns for the same row: every DateTime a Date
 * (a ReadDate), in the row and in each relation it carries. Changes `row` in place and returns it.
 */
export function asModelRow<T>(model: string, row: Record<string, unknown>): T {
  const { dates, relations } = shapeOf(model);
  for (const name of dates) {
    const value = row[name];
    if (typeof value === 'string') row[name] = readTimestamp(value);
  }
  for (const [name, related] of relations) {
    const value = row[name];
    if (Array.isArray(value)) for (const item of value) asModelRow(related, item);
    else if (value && typeof value === 'object') asModelRow(related, value as Record<string, unknown>);
  }
  return row as T;
}
