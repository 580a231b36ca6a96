import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tenantClient, type TenantDb } from '../../src/db/tenant.ts';
import type { KeysetQuery } from '../../src/db/account-page.ts';
import { hostingPage } from '../../src/modules/hosting/service.ts';
import { poolPage } from '../../src/modules/pools/service.ts';
import { MESSAGES, ticketPage } from '../../src/modules/tickets/service.ts';
import { readTicketWithThread } from '../../src/modules/tickets/ticket-read.ts';
import { startTestApp, type Customer, type TestApp } from '../helpers/app.ts';
import { expectError } from '../helpers/servers.ts';
import { activeHosting } from '../helpers/hosting.ts';
import { comparable } from '../helpers/rows.ts';

// The flat lists (tickets, pools, hosting accounts) and one ticket with its thread read in one
// statement each on the database's driver (src/db/account-page.ts, src/modules/tickets/ticket-read.ts).
// Here each must equal, deep and strict, what Prisma's query on the tenant client returns for the
// same data, page by page along the cursor, on whichever database the suite runs on; other
// accounts' rows never appear.

let app: TestApp;
let c: Customer;
let other: Customer;
const tickets: string[] = [];

beforeAll(async () => {
  app = await startTestApp();
  c = await app.customer({ walletBalanceUsdCents: 1_000_000 });
  other = await app.customer({ walletBalanceUsdCents: 1_000_000 });
  for (const customer of [c, other]) {
    for (let i = 0; i < 4; i++) {
      const t = await app.call('POST', '/v1/tickets', {
        key: customer.key,
        body: { subject: `ticket ${i}`, message: `first message of ${i}` },
      });
      expect(t.status, t.text).toBe(200);
      if (customer === c) tickets.push(t.body.id);
    }
    const buy = (label: string) =>
      app.call('POST', '/v1/pools', {
        key: customer.key,
        body: { productId: 'pool-fra1', label, vcpu: 4, ram2gb: 4, disk100: 1, ip16: 1 },
      });
    for (const label of ['one', 'two', 'gone', 'three']) expect((await buy(label)).status).toBe(200);
    await activeHosting(app, customer);
    await activeHosting(app, customer);
  }
  // A thread of customer and staff messages, one ticket closed, one pool deleted.
  await app.call('POST', `/v1/tickets/${tickets[1]}/reply`, { key: c.key, body: { body: 'Any news?' } });
  expect((await app.admin('POST', `/admin/tickets/${tickets[1]}/replies`, { body: 'Looking into it.' })).status).toBe(
    201,
  );
  await app.call('POST', `/v1/tickets/${tickets[1]}/reply`, { key: c.key, body: { body: 'Thanks.' } });
  expect((await app.call('POST', `/v1/tickets/${tickets[2]}/close`, { key: c.key })).status).toBe(200);
  const pools = (await app.call('GET', '/v1/pools', { key: c.key })).body.data as { id: string; label: string }[];
  const gone = pools.find((p) => p.label === 'gone')!;
  expect((await app.call('DELETE', `/v1/pools/${gone.id}`, { key: c.key })).status).toBe(200);
}, 120_000);
afterAll(() => app?.stop());

type Read = (db: TenantDb, q: KeysetQuery) => Promise<{ id: string }[]>;

/** Every page of `take` rows along the cursor, read both ways; the ids of the whole list. */
async function samePages(read: Read, viaPrisma: Read, take: number): Promise<string[]> {
  const db = tenantClient(app.running.app.prisma, c.accountId);
  const ids: string[] = [];
  let before: string | undefined;
  for (;;) {
    const q: KeysetQuery = { take, where: before ? { id: { lt: before } } : {} };
    const expected = await viaPrisma(db, q);
    expect(comparable(await read(db, q))).toStrictEqual(comparable(expected));
    ids.push(...expected.map((r) => r.id));
    if (expected.length < take) return ids;
    before = expected[expected.length - 1].id;
  }
}

describe('flat lists in one statement', () => {
  const cases: [string, Read, Read, number][] = [
    ['tickets', ticketPage, (db, q) => db.ticket.findMany({ ...q, orderBy: { id: 'desc' } }), 4],
    [
      'pools (deleted ones left out)',
      poolPage,
      (db, q) => db.pool.findMany({ ...q, where: { ...q.where, status: { not: 'deleted' } }, orderBy: { id: 'desc' } }),
      3,
    ],
    ['hosting accounts', hostingPage, (db, q) => db.hostingAccount.findMany({ ...q, orderBy: { id: 'desc' } }), 2],
  ];
  for (const [name, read, viaPrisma, expected] of cases) {
    it(`${name}: equal to Prisma's findMany, page by page`, async () => {
      const whole = await samePages(read, viaPrisma, 100);
      expect(whole).toHaveLength(expected);
      for (const take of [1, 2]) expect(await samePages(read, viaPrisma, take)).toEqual(whole);
    });
  }

  it('REST pages the lists with the same items as the whole list', async () => {
    for (const path of ['/v1/tickets', '/v1/pools', '/v1/hosting']) {
      const whole = (await app.call('GET', `${path}?limit=100`, { key: c.key })).body.data;
      const paged: unknown[] = [];
      let cursor: string | null = null;
      do {
        const page: { status: number; text: string; body: { data: unknown[]; nextCursor: string | null } } =
          await app.call('GET', `${path}?limit=1${cursor ? `&cursor=${cursor}` : ''}`, { key: c.key });
        expect(page.status, page.text).toBe(200);
        paged.push(...page.body.data);
        cursor = page.body.nextCursor;
      } while (cursor);
      expect(paged).toEqual(whole);
    }
  });
});

describe('a ticket with its thread in one statement', () => {
  it('equals Prisma’s findFirst with the thread for every ticket; another account’s and a missing one read as missing', async () => {
    const db = tenantClient(app.running.app.prisma, c.accountId);
    for (const id of tickets) {
      const read = await readTicketWithThread(db, id);
      expect(comparable(read)).toStrictEqual(
        comparable(await db.ticket.findFirst({ where: { id }, include: MESSAGES })),
      );
    }
    expect((await readTicketWithThread(db, tickets[1]))!.messages.map((m) => [m.author, m.body])).toEqual([
      ['customer', 'first message of 1'],
      ['customer', 'Any news?'],
      ['staff', 'Looking into it.'],
      ['customer', 'Thanks.'],
    ]);
    expect(await readTicketWithThread(tenantClient(app.running.app.prisma, other.accountId), tickets[0])).toBeNull();
    expect(await readTicketWithThread(db, 'tkt_missing')).toBeNull();
    expectError(await app.call('GET', `/v1/tickets/${tickets[0]}`, { key: other.key }), 404);
  });
});
