import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startTestApp, type Customer, type Json, type Reply, type TestApp } from '../helpers/app.ts';

vi.setConfig({ testTimeout: 60_000, hookTimeout: 120_000 });

/**
 * The write that completes an idempotency record runs after the mutation committed. These
 * tests cut it (and the cleanup of a failed run) with a trigger that fails the statement with
 * a connection error, as a connection dropped at that moment would, and show what a retry with
 * the same key gets.
 */
describe('Idempotency-Key when the database drops mid-request', () => {
  let app: TestApp;
  let c: Customer;
  const LEASE_MS = 1500;
  const sql = (text: string) => app.running.app.prisma.$executeRawUnsafe(text);
  const ticketCount = () => app.running.app.prisma.ticket.count({ where: { accountId: c.accountId } });
  const open = (key: string, subject: string) =>
    app.call('POST', '/v1/tickets', {
      key: c.key,
      body: { subject, message: 'The disk is full.' },
      headers: { 'Idempotency-Key': key },
    });

  /** Fails the matching statements on `table` with SQLSTATE 08006 (connection failure) until `heal()`. */
  const cut = async (table: string, events: string, when = 'true') => {
    await sql(
      `CREATE OR REPLACE FUNCTION test_cut() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'connection to server was lost' USING ERRCODE = '08006'; END $$`,
    );
    await sql(
      `CREATE TRIGGER test_cut BEFORE ${events} ON "${table}" FOR EACH ROW WHEN (${when}) EXECUTE FUNCTION test_cut()`,
    );
  };
  const heal = async () => {
    await sql('DROP TRIGGER IF EXISTS test_cut ON "IdempotencyRecord"');
    await sql('DROP TRIGGER IF EXISTS test_cut ON "Ticket"');
  };

  beforeAll(async () => {
    app = await startTestApp({ idempotencyLeaseMs: LEASE_MS });
    c = await app.customer();
  });
  afterAll(() => app?.stop());

  it('the completion write fails after the commit: the client gets a 503, and its retry replays the same ticket, created once', async () => {
    await cut('IdempotencyRecord', 'UPDATE', `NEW.state = 'completed'`);
    let first: Reply<Json>;
    try {
      first = await open('cut-1', 'Disk full');
    } finally {
      await heal();
    }
    expect(first.status).toBe(503);
    expect(first.headers.get('retry-after')).not.toBeNull();
    // The ticket committed, and its transaction recorded itself in the key's record.
    expect(await ticketCount()).toBe(1);
    const [ticket] = await app.running.app.prisma.ticket.findMany({ where: { accountId: c.accountId } });

    const retry = await open('cut-1', 'Disk full');
    expect(retry.status).toBe(200);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(retry.body).toMatchObject({ id: ticket.id, number: ticket.number, subject: 'Disk full', status: 'open' });
    expect(await ticketCount()).toBe(1);
    // The replay completed the record: the next retry gets the stored answer, byte for byte.
    const again = await open('cut-1', 'Disk full');
    expect(again.status).toBe(200);
    expect(again.body).toEqual(retry.body);
    expect(await ticketCount()).toBe(1);
    // One event: the replay did not record the creation again.
    expect(
      await app.running.app.prisma.event.count({ where: { accountId: c.accountId, type: 'ticket.created' } }),
    ).toBe(1);
  });

  it('the same over GraphQL: the replay answers the same ticket in the shape the query asked for', async () => {
    const body = {
      query: 'mutation($s: String!) { ticketCreate(subject: $s, message: "Fans loud.") { id number subject } }',
      variables: { s: 'Fans' },
    };
    const call = () => app.call('POST', '/graphql', { key: c.key, body, headers: { 'Idempotency-Key': 'cut-gql' } });
    const before = await ticketCount();
    await cut('IdempotencyRecord', 'UPDATE', `NEW.state = 'completed'`);
    let first: Reply<Json>;
    try {
      first = await call();
    } finally {
      await heal();
    }
    expect(first.status).toBe(503);
    expect(await ticketCount()).toBe(before + 1);
    const created = await app.running.app.prisma.ticket.findFirstOrThrow({
      where: { accountId: c.accountId, subject: 'Fans' },
    });
    const retry = await call();
    expect(retry.status).toBe(200);
    expect(retry.body).toEqual({ data: { ticketCreate: { id: created.id, number: created.number, subject: 'Fans' } } });
    expect(await ticketCount()).toBe(before + 1);
  });

  it('a claim whose mutation never committed (and whose cleanup was lost too) is busy only for its lease, then the retry runs', async () => {
    const before = await ticketCount();
    // The ticket insert fails and so does the delete that frees the key: the claim is left in_progress.
    await cut('Ticket', 'INSERT');
    await sql(`CREATE TRIGGER test_cut BEFORE DELETE ON "IdempotencyRecord" FOR EACH ROW EXECUTE FUNCTION test_cut()`);
    let first: Reply<Json>;
    try {
      first = await open('lease-1', 'Reboot loop');
    } finally {
      await heal();
    }
    expect(first.status).toBe(503);
    expect(await ticketCount()).toBe(before);
    const state = () =>
      app.running.app.prisma.idempotencyRecord.findUniqueOrThrow({
        where: { accountId_credentialId_key: { accountId: c.accountId, credentialId: c.keyId, key: 'lease-1' } },
      });
    expect((await state()).state).toBe('in_progress');
    const leftAt = Date.now();

    // Within the lease the key reads as running: 409, nothing runs.
    const busy = await open('lease-1', 'Reboot loop');
    if (Date.now() - leftAt < LEASE_MS) {
      expect(busy.status).toBe(409);
      expect(busy.body.message).toMatch(/still being processed/);
    }
    expect(await ticketCount()).toBe(before);

    await new Promise((r) => setTimeout(r, Math.max(0, LEASE_MS - (Date.now() - leftAt)) + 100));
    const retry = await open('lease-1', 'Reboot loop');
    expect(retry.status).toBe(200);
    expect(retry.headers.get('idempotent-replayed')).toBeNull();
    expect(retry.body).toMatchObject({ subject: 'Reboot loop', status: 'open' });
    expect(await ticketCount()).toBe(before + 1);
    expect((await state()).state).toBe('completed');
  });

  // PostgreSQL only: the embedded database runs one transaction at a time, so no lock can hold a request there.
  it.runIf(process.env.TEST_DATABASE_URL)(
    'a request whose lease was taken over cannot commit under the key: one ticket, whichever ran',
    async () => {
      const before = await ticketCount();
      const prisma = app.running.app.prisma;
      // The first request is stopped at its ticket insert (a lock held here) past its lease.
      let release!: () => void;
      const held = new Promise<void>((r) => (release = r));
      let locked!: () => void;
      const isLocked = new Promise<void>((r) => (locked = r));
      // The ticket counter's row exists (run alone, this test opens the first ticket), so the lock holds it.
      await sql(`INSERT INTO "Counter" ("name", "last") VALUES ('ticket', 0) ON CONFLICT DO NOTHING`);
      const locking = prisma.$transaction(
        async (tx) => {
          await tx.$queryRawUnsafe('SELECT 1 FROM "Counter" FOR UPDATE');
          locked();
          await held;
        },
        { timeout: 20_000 },
      );
      await isLocked;
      const slow = open('fence-1', 'Slow');
      for (let i = 0; i < 100 && !(await prisma.idempotencyRecord.findFirst({ where: { key: 'fence-1' } })); i++)
        await new Promise((r) => setTimeout(r, 20));
      await new Promise((r) => setTimeout(r, LEASE_MS + 100));
      const retry = open('fence-1', 'Slow');
      await new Promise((r) => setTimeout(r, 200));
      release();
      await locking;
      const answers = await Promise.all([slow, retry]);
      expect(await ticketCount()).toBe(before + 1);
      // The request that lost its claim is refused (409), its ticket rolled back.
      expect(answers.map((a) => a.status).sort()).toEqual([200, 409]);
    },
  );
});

describe('a recorded step survives the database as the value the transaction returned', () => {
  it('dates, bigints, bytes, undefined and keys that look like tags come back as they were', async () => {
    const { encode, decode } = await import('../../src/db/recovery.ts');
    const value = {
      at: new Date('2026-01-02T03:04:05.678Z'),
      seq: 12345678901234567890n,
      raw: Buffer.from('hi'),
      gone: undefined,
      list: [1, null, { $d: 'not a date' }],
      nested: { $o: 1 },
    };
    const back = decode(JSON.parse(JSON.stringify(encode(value)))) as typeof value;
    expect(back.at).toBeInstanceOf(Date);
    expect(back.at.toISOString()).toBe('2026-01-02T03:04:05.678Z');
    expect(back.seq).toBe(12345678901234567890n);
    expect(Buffer.from(back.raw).toString()).toBe('hi');
    expect('gone' in back).toBe(false);
    expect(back.list).toEqual([1, null, { $d: 'not a date' }]);
    expect(back.nested).toEqual({ $o: 1 });
    expect(decode(JSON.parse(JSON.stringify(encode(undefined))))).toBeUndefined();
  });
});
