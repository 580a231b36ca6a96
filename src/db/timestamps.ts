import { getDatamodel } from '../generated/pothos-types.ts';
import type { PrismaClient } from '../generated/prisma/client.ts';
import { extendBeneathRecoveryPoints } from './recovery.ts';
import { rawReadsOf, registerRawReads } from './tenant.ts';

/**
 * Row timestamps from the simulated clock. Prisma fills `@updatedAt` and `@default(now())`
 * from the wall clock, so after POST /admin/clock/advance a row's `updatedAt` would read earlier
 * than its `createdAt`. This extension gives every write, nested writes included, the clock's
 * time for the fields it leaves out: `@updatedAt` fields on create and update, DateTime fields
 * with a default (all `now()` in this schema) on create. A value the caller sets is kept.
 * Raw SQL that touches these columns passes the clock's time itself (wallet, webhook
 * deliveries, relay cursor).
 */
interface ModelStamps {
  /** `@updatedAt` fields. */
  updated: string[];
  /** DateTime fields with a default (`@default(now())`). */
  created: string[];
  /** Relation field → related model. */
  relations: Map<string, string>;
  /** Whether the model has a field named `data` (then `{ data }` is not the `{ where, data }` form). */
  hasDataField: boolean;
}

const MODELS = new Map<string, ModelStamps>(
  Object.entries(getDatamodel().datamodel.models).map(([name, model]) => [
    name,
    {
      updated: model.fields.filter((f) => f.isUpdatedAt).map((f) => f.name),
      created: model.fields
        .filter((f) => f.kind === 'scalar' && f.type === 'DateTime' && f.hasDefaultValue && !f.isUpdatedAt)
        .map((f) => f.name),
      relations: new Map(model.fields.filter((f) => f.kind === 'object').map((f) => [f.name, f.type])),
      hasDataField: model.fields.some((f) => f.name === 'data'),
    },
  ]),
);

type Data = Record<string, unknown>;
const isData = (v: unknown): v is Data =>
  typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Date);
const each = (v: unknown, fn: (d: Data) => Data): unknown =>
  Array.isArray(v) ? v.map((d) => (isData(d) ? fn(d) : d)) : isData(v) ? fn(v) : v;

function fill(data: Data, fields: string[], now: Date): Data {
  const missing = fields.filter((f) => data[f] === undefined);
  if (!missing.length) return data;
  const out = { ...data };
  for (const f of missing) out[f] = now;
  return out;
}

/** `data` of a create of `model`, with its nested writes. */
function stampCreate(model: string, data: Data, now: Date): Data {
  const m = MODELS.get(model);
  if (!m) return data;
  return nested(m, fill(data, [...m.created, ...m.updated], now), now);
}

/** `data` of an update of `model`, with its nested writes. */
function stampUpdate(model: string, data: Data, now: Date): Data {
  const m = MODELS.get(model);
  if (!m) return data;
  return nested(m, fill(data, m.updated, now), now);
}

/** The nested writes of a relation field: create, createMany, connectOrCreate, update, updateMany, upsert. */
function nested(m: ModelStamps, data: Data, now: Date): Data {
  let out = data;
  for (const [field, related] of m.relations) {
    const ops = data[field];
    if (!isData(ops)) continue;
    const next: Data = { ...ops };
    if (ops.create !== undefined) next.create = each(ops.create, (d) => stampCreate(related, d, now));
    if (isData(ops.createMany))
      next.createMany = { ...ops.createMany, data: each(ops.createMany.data, (d) => stampCreate(related, d, now)) };
    if (ops.connectOrCreate !== undefined)
      next.connectOrCreate = each(ops.connectOrCreate, (c) => ({
        ...c,
        create: isData(c.create) ? stampCreate(related, c.create, now) : c.create,
      }));
    for (const key of ['update', 'updateMany'] as const) {
      if (ops[key] === undefined) continue;
      // To-one: `update: data` or `update: { where?, data }`; to-many: `{ where, data }` (or a list of them).
      const wrapped = (u: Data) =>
        isData(u.data) &&
        (u.where !== undefined || (Object.keys(u).length === 1 && !MODELS.get(related)?.hasDataField));
      next[key] = each(ops[key], (u) =>
        wrapped(u) ? { ...u, data: stampUpdate(related, u.data as Data, now) } : stampUpdate(related, u, now),
      );
    }
    if (ops.upsert !== undefined) {
      next.upsert = each(ops.upsert, (u) => ({
        ...u,
        create: isData(u.create) ? stampCreate(related, u.create, now) : u.create,
        update: isData(u.update) ? stampUpdate(related, u.update, now) : u.update,
      }));
    }
    out = out === data ? { ...data } : out;
    out[field] = next;
  }
  return out;
}

// The hooks rewrite `data` of any model, so they see the arguments as plain objects.
type Hook<Args = Data> = { model: string; args: Args; query: (args: Data) => Promise<unknown> };

/** The client whose writes take their timestamps from `now` (the simulated clock). */
export function withClockTimestamps(prisma: PrismaClient, now: () => Date): PrismaClient {
  const creates = ({ model, args, query }: Hook) =>
    query({ ...args, data: each(args.data, (d) => stampCreate(model, d, now())) });
  const updates = ({ model, args, query }: Hook) =>
    query({ ...args, data: each(args.data, (d) => stampUpdate(model, d, now())) });
  const clocked = extendBeneathRecoveryPoints(
    prisma,
    (beneath) =>
      beneath.$extends({
        name: 'clock-timestamps',
        query: {
          $allModels: {
            create: creates,
            createMany: creates,
            createManyAndReturn: creates,
            update: updates,
            updateMany: updates,
            updateManyAndReturn: updates,
            upsert: ({ model, args, query }: Hook<Data & { create: Data; update: Data }>) => {
              const at = now();
              return query({
                ...args,
                create: stampCreate(model, args.create, at),
                update: stampUpdate(model, args.update, at),
              });
            },
          },
        },
      }) as unknown as PrismaClient,
  );
  // Its tenant clients' hand-written reads go to the same driver (tenant.ts).
  const reads = rawReadsOf(prisma);
  if (reads) registerRawReads(clocked, reads);
  return clocked;
}
