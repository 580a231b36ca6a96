import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type Database, openDatabase } from '../../src/db/client.ts';
import { runEmbeddedAutovacuum } from '../../src/db/embedded-autovacuum.ts';
import { type EmbeddedClient, fastQueryClient } from '../../src/db/pglite-fast-client.ts';

// The embedded database is one session shared by every caller: whatever reaches it while a
// transaction is open runs inside that transaction. The client (src/db/pglite-fast-client.ts)
// owns the lock that keeps everyone else out; these check it from the outside, on a real PGlite.

let client: EmbeddedClient;
beforeAll(async () => {
  client = fastQueryClient(new PGlite(), { preparedStatements: 100 });
  await client.exec('CREATE TABLE item (id text PRIMARY KEY)');
});
afterAll(async () => {
  await client?.close();
});

const ids = async (prefix: string) =>
  (await client.query('SELECT id FROM item WHERE id LIKE $1 ORDER BY id', [`${prefix}%`])).rows.map(
    (r) => (r as { id: string }).id,
  );
/** Time enough for anything not held back to reach the database. */
const settle = () => new Promise((r) => setTimeout(r, 50));

describe('the embedded client: one transaction at a time, and nothing slips into one', () => {
  it('a statement sent while a transaction is open waits for its commit, then sees its rows', async () => {
    let answered = false;
    let seen: Promise<string[]> | undefined;
    await client.transaction(async (tx) => {
      seen = ids('a-').then((rows) => {
        answered = true;
        return rows;
      });
      await settle();
      expect(answered).toBe(false);
      await tx.query(`INSERT INTO item VALUES ('a-tx')`);
    });
    expect(await seen).toEqual(['a-tx']);
  });

  it('a rolled-back transaction leaves nothing, and what others sent meanwhile stays', async () => {
    let outside: Promise<unknown> | undefined;
    await expect(
      client.transaction(async (tx) => {
        await tx.query(`INSERT INTO item VALUES ('b-tx')`);
        outside = client.query(`INSERT INTO item VALUES ('b-outside')`);
        await settle();
        throw new Error('changed my mind');
      }),
    ).rejects.toThrow('changed my mind');
    await outside;
    expect(await ids('b-')).toEqual(['b-outside']);
  });

  it('a LISTEN started during a transaction waits for it, so its rollback does not undo the LISTEN', async () => {
    const heard: string[] = [];
    let listening: Promise<() => Promise<void>> | undefined;
    await expect(
      client.transaction(async (tx) => {
        await tx.query(`INSERT INTO item VALUES ('c-tx')`);
        listening = client.listen('item_changed', (payload) => heard.push(payload));
        await settle();
        throw new Error('changed my mind');
      }),
    ).rejects.toThrow('changed my mind');
    const unlisten = await listening!;
    await client.query(`SELECT pg_notify('item_changed', 'heard')`);
    await vi.waitFor(() => expect(heard).toEqual(['heard']));

    await unlisten();
    await client.query(`SELECT pg_notify('item_changed', 'not heard')`);
    await settle();
    expect(heard).toEqual(['heard']);
  });

  it("autovacuum's VACUUM waits for an open transaction instead of running inside it", async () => {
    await client.exec('CREATE TABLE queue (id int PRIMARY KEY)');
    await client.query('INSERT INTO queue SELECT g FROM generate_series(1, 2000) g');
    // The inserts reach the statistics now, so the round finds the table due from its first statement on.
    await client.query('SELECT pg_stat_force_next_flush()');
    await client.query('SELECT 1');

    let finished = false;
    let round: ReturnType<typeof runEmbeddedAutovacuum> | undefined;
    await client.transaction(async (tx) => {
      await tx.query('SELECT count(*) FROM queue');
      round = runEmbeddedAutovacuum(client).finally(() => {
        finished = true;
      });
      await settle();
      expect(finished).toBe(false);
      await tx.query('SELECT count(*) FROM queue');
    });
    expect((await round!).vacuumed).toContain('public.queue');
  });
});

describe('the embedded client once closed', () => {
  it('refuses statements instead of sending them to the stopped WebAssembly, which would never answer', async () => {
    const closed = fastQueryClient(new PGlite(), { preparedStatements: 10 });
    await closed.query('SELECT 1');
    await closed.close();
    await expect(closed.query('SELECT 1')).rejects.toThrow('PGlite is closed');
    await expect(closed.transaction(async (tx) => tx.query('SELECT 1'))).rejects.toThrow('PGlite is closed');
    await expect(closed.exec('SELECT 1')).rejects.toThrow('PGlite is closed');
  });
});

describe("the embedded Database's own uses of the instance go through the client", () => {
  let root: string;
  let db: Database;
  beforeAll(async () => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-pglite-client-'));
    db = await openDatabase({ dataDir: root });
  });
  afterAll(async () => {
    await db?.close();
    fs.rmSync(root, { recursive: true, force: true });
  });

  it("ping and listen wait for Prisma's open transaction; its rollback keeps the LISTEN", async () => {
    const heard: string[] = [];
    let pinged = false;
    let ping: Promise<void> | undefined;
    let listening: ReturnType<Database['listen']> | undefined;
    await expect(
      db.prisma.$transaction(async (tx) => {
        await tx.$queryRawUnsafe('SELECT 1');
        ping = db.ping().then(() => {
          pinged = true;
        });
        listening = db.listen('db_changed', { onNotify: (payload) => heard.push(payload ?? '') });
        await settle();
        expect(pinged).toBe(false);
        throw new Error('changed my mind');
      }),
    ).rejects.toThrow('changed my mind');
    await ping;
    const listen = await listening!;
    await db.prisma.$executeRawUnsafe(`SELECT pg_notify('db_changed', 'heard')`);
    await vi.waitFor(() => expect(heard).toEqual(['heard']));
    await listen.close();
  });
});

describe('the embedded client shares the event loop', () => {
  it('a timer set while many statements are queued fires before they have all run', async () => {
    // Hundreds of statements from requests in flight: PGlite answers each at once, so without
    // the client's slices they would all run before the loop fired a timer or read a socket.
    const done: string[] = [];
    const timer = new Promise<void>((resolve) =>
      setTimeout(() => {
        done.push('timer');
        resolve();
      }, 0),
    );
    const statements = Array.from({ length: 2000 }, (_, i) =>
      client.query('SELECT $1::int AS n', [i]).then(() => void done.push('statement')),
    );
    await Promise.all([timer, ...statements]);
    const firedAfter = done.indexOf('timer');
    expect(firedAfter).toBeGreaterThan(0);
    expect(firedAfter).toBeLessThan(statements.length);
  });
});
