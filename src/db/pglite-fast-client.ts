import { type PGlite, protocol, type Transaction } from '@electric-sql/pglite';

type Parser = (value: string, typeId: number) => unknown;
interface QueryOptions {
  rowMode?: 'array' | 'object';
  parsers?: Record<number, Parser>;
}
interface Results {
  rows: unknown[];
  fields: { name: string; dataTypeID: number }[];
  affectedRows: number;
}
interface Statement {
  name: string;
  paramTypes: number[];
}
/** The part of PGlite's interface the Prisma adapter (pglite-prisma-adapter) calls. */
export interface AdapterClient {
  query(sql: string, values?: unknown[], options?: QueryOptions): Promise<Results>;
  exec: PGlite['exec'];
}

/** The embedded database's one way in: the adapter's interface, and the rest of the app's uses of the instance. */
export interface EmbeddedClient extends AdapterClient {
  transaction<T>(fn: (tx: Transaction & AdapterClient) => Promise<T>): Promise<T>;
  /** LISTENs on `channel`; the function returned UNLISTENs (nothing once the database is closed). */
  listen(channel: string, onNotify: (payload: string) => void): Promise<() => Promise<void>>;
  close(): Promise<void>;
}

const { serialize } = protocol;

/**
 * The embedded database's client for Prisma's adapter, with PGlite's `query` and
 * `transaction` replaced by lean ones. PGlite's own `query` makes six calls into WebAssembly
 * per statement (parse, describe, bind, describe, execute, sync, each a round of its protocol
 * machinery) and parses and plans the text every time; measured ~530 µs for a one-row insert.
 * Here each distinct statement (up to `preparedStatements`) is prepared once under a name, its
 * parameter types learnt then, and every execution is one call carrying bind, describe,
 * execute and sync: ~100 µs.
 *
 * Semantics are PGlite's: a statement outside a transaction waits for any open one and
 * syncs the files after; inside one it runs as part of it. Errors are PGlite's
 * DatabaseError, which the adapter maps to Prisma's error codes.
 *
 * The client owns the instance's transaction lock: one session serves every caller, so any
 * statement sent while a transaction is open becomes part of it (and is undone by its
 * rollback). Every use of the instance, the app's LISTENs, autovacuum and `close` included,
 * therefore goes through this client, which runs each only while no transaction is open.
 */
export function fastQueryClient(pglite: PGlite, opts: { preparedStatements: number }): EmbeddedClient {
  const statements = new Map<string, Statement>();
  const merged = new WeakMap<object, Record<number, Parser>>();
  const parsersFor = (options?: QueryOptions): Record<number, Parser> => {
    const base = pglite.parsers;
    if (!options?.parsers) return base;
    let parsers = merged.get(options.parsers);
    if (!parsers) {
      parsers = { ...base, ...options.parsers };
      merged.set(options.parsers, parsers);
    }
    return parsers;
  };

  async function prepare(sql: string): Promise<Statement> {
    const known = statements.get(sql);
    if (known) return known;
    // Beyond the bound, statements go unnamed: parsed again each time, as PGlite would.
    const name = statements.size < opts.preparedStatements ? `svc_${statements.size}` : '';
    const { messages } = await pglite.execProtocol(
      concat([serialize.parse({ name, text: sql }), serialize.describe({ type: 'S', name }), serialize.sync()]),
      { syncToFs: false },
    );
    const description = messages.find((m) => m.name === 'parameterDescription') as
      | { dataTypeIDs: number[] }
      | undefined;
    const statement = { name, paramTypes: description?.dataTypeIDs ?? [] };
    if (name) statements.set(sql, statement);
    return statement;
  }

  async function run(sql: string, values: unknown[] = [], options?: QueryOptions): Promise<Results> {
    await yieldWhenSliceSpent();
    const statement = await prepare(sql);
    const { serializers } = pglite;
    const params = values.map((value, i) => {
      if (value === null || value === undefined) return null;
      const serializer = serializers[statement.paramTypes[i]];
      return serializer ? serializer(value) : String(value);
    });
    const message = concat([
      ...(statement.name ? [] : [serialize.parse({ text: sql })]),
      serialize.bind({ statement: statement.name, values: params as (string | null)[] }),
      serialize.describe({ type: 'P' }),
      serialize.execute(),
      serialize.sync(),
    ]);
    const { messages } = await pglite.execProtocol(message, { syncToFs: false });
    return toResults(messages as unknown as Message[], parsersFor(options), options?.rowMode ?? 'object');
  }

  // The transaction lock, held through a whole transaction and around anything sent outside one;
  // waiters go in the order they asked.
  let last: Promise<unknown> = Promise.resolve();
  const exclusive = <T>(fn: () => Promise<T>): Promise<T> => {
    const result = last.then(fn);
    last = result.then(ignore, ignore);
    return result;
  };
  // A closed instance's WebAssembly never answers another message (the process hangs): refuse,
  // as PGlite's own `query` does. Checked under the lock, so `close` cannot come in between.
  const notClosed = () => {
    if (pglite.closed) throw new Error('PGlite is closed');
  };
  // BEGIN, COMMIT, ROLLBACK (and any other statement a transaction `exec`s): one simple-protocol
  // message each, results unread (PGlite's own `exec` converts them through its generic result
  // parser, ~10 % of the embedded database's CPU at 200 webhook events/s).
  const control = (sql: string) =>
    pglite.runExclusive(() => pglite.execProtocol(serialize.query(sql), { syncToFs: false }));

  return {
    async query(sql, values, options) {
      await pglite.waitReady;
      const result = await exclusive(() => {
        notClosed();
        return pglite.runExclusive(() => run(sql, values, options));
      });
      await pglite.syncToFs();
      return result;
    },
    exec: (sql, options) => exclusive(() => pglite.exec(sql, options)),
    /** As PGlite's `transaction`: one at a time, committed when `fn` resolves, rolled back when it throws or calls `rollback`. */
    async transaction(fn) {
      await pglite.waitReady;
      return exclusive(async () => {
        notClosed();
        await control('BEGIN');
        let closed = false;
        const open = () => {
          if (closed) throw new Error('Transaction is closed');
        };
        const tx = {
          query: async (sql: string, values?: unknown[], options?: QueryOptions) => {
            open();
            return pglite.runExclusive(() => run(sql, values, options));
          },
          exec: async (sql: string) => {
            open();
            await control(sql);
            return [];
          },
          rollback: async () => {
            open();
            closed = true; // at once: the caller may let `fn` resolve before this finishes
            await control('ROLLBACK');
          },
          get closed() {
            return closed;
          },
        } as unknown as Transaction & AdapterClient;
        try {
          const result = await fn(tx);
          if (!closed) {
            closed = true;
            await control('COMMIT');
          }
          return result;
        } catch (err) {
          if (!closed) {
            closed = true;
            await control('ROLLBACK');
          }
          throw err;
        } finally {
          await pglite.syncToFs();
        }
      });
    },
    async listen(channel, onNotify) {
      const unlisten = await exclusive(() => pglite.listen(channel, onNotify));
      return () => exclusive(async () => (pglite.closed ? undefined : unlisten()));
    },
    close: () => exclusive(() => pglite.close()),
  };
}

const ignore = () => undefined;

/**
 * The embedded database's share of one turn of the event loop. PGlite runs on this thread and
 * answers through promises that are already settled, so the statements of every request in
 * flight would chain as one run of microtasks: while it lasted the loop would read no socket
 * and fire no timer (health probes, new requests, the overload queue's deadlines). Once a run
 * has spent its slice, the next statement waits for the loop's next turn.
 */
const SLICE_MS = 10;
let sliceStartedAt = -1;

function yieldWhenSliceSpent(): Promise<void> | undefined {
  const now = performance.now();
  if (sliceStartedAt < 0) {
    sliceStartedAt = now;
    // The loop's next check phase starts the next slice (this runs before the statements it let wait).
    setImmediate(() => {
      sliceStartedAt = -1;
    });
    return undefined;
  }
  if (now - sliceStartedAt < SLICE_MS) return undefined;
  return new Promise<void>((resolve) => setImmediate(resolve));
}

type Message =
  | { name: 'rowDescription'; fields: { name: string; dataTypeID: number }[] }
  | { name: 'dataRow'; fields: (string | null)[] }
  | { name: 'commandComplete'; text: string }
  | { name: string };

/** The first result set of an extended-protocol exchange, as PGlite's `query` returns it. */
function toResults(messages: Message[], parsers: Record<number, Parser>, rowMode: 'array' | 'object'): Results {
  const result: Results = { rows: [], fields: [], affectedRows: 0 };
  for (const message of messages) {
    if (message.name === 'rowDescription') {
      result.fields = (message as Extract<Message, { name: 'rowDescription' }>).fields.map((f) => ({
        name: f.name,
        dataTypeID: f.dataTypeID,
      }));
    } else if (message.name === 'dataRow') {
      const values = (message as Extract<Message, { name: 'dataRow' }>).fields.map((v, i) => {
        if (v === null) return null;
        const typeId = result.fields[i].dataTypeID;
        const parse = parsers[typeId];
        return parse ? parse(v, typeId) : v;
      });
      result.rows.push(
        rowMode === 'array' ? values : Object.fromEntries(values.map((v, i) => [result.fields[i].name, v])),
      );
    } else if (message.name === 'commandComplete') {
      result.affectedRows = rowCount((message as Extract<Message, { name: 'commandComplete' }>).text);
      break;
    }
  }
  return result;
}

function rowCount(tag: string): number {
  const parts = tag.split(' ');
  if (parts[0] === 'INSERT') return Number(parts[2]);
  if (['UPDATE', 'DELETE', 'COPY', 'MERGE'].includes(parts[0])) return Number(parts[1]);
  return 0;
}

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}
