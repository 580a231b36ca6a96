import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tenantClient } from '../../src/db/tenant.ts';
import { readDeliveryPage } from '../../src/modules/webhooks/delivery-read.ts';
import { DELIVERY_SELECT } from '../../src/modules/webhooks/service.ts';
import { startTestApp, type Customer, type TestApp } from '../helpers/app.ts';
import { advance, provisionedServers, runDueWork, startReceiver, type Receiver } from '../helpers/webhooks.ts';
import { comparable } from '../helpers/rows.ts';

// GET /v1/webhooks/:id/deliveries reads the subscription's existence, a page of its deliveries
// and their attempts in one statement (src/modules/webhooks/delivery-read.ts); here it must
// equal, deep and strict, what Prisma's findMany with the service's DELIVERY_SELECT returns for
// the same data, on whichever database the suite runs on, for every page and cursor.

let app: TestApp;
let receiver: Receiver;
let c: Customer;
let other: Customer;
let hookId: string;
let otherHookId: string;

beforeAll(async () => {
  app = await startTestApp({ webhookAllowPrivate: true });
  receiver = await startReceiver();
  // Every other answer fails, so deliveries differ: one attempt, two, pending, succeeded.
  let calls = 0;
  receiver.respond = () => (calls++ % 2 === 0 ? 500 : 200);
  c = await app.customer();
  other = await app.customer();
  const subscribe = async (customer: Customer) =>
    (await app.call('POST', '/v1/webhooks', { key: customer.key, body: { url: `${receiver.url}/log`, events: ['*'] } }))
      .body.id as string;
  hookId = await subscribe(c);
  otherHookId = await subscribe(other);
  await provisionedServers(app, c.accountId, 7);
  await provisionedServers(app, other.accountId, 2);
  await runDueWork(app);
  await advance(app, 61);
  await runDueWork(app);
}, 120_000);
afterAll(async () => {
  await receiver?.close();
  await app?.stop();
});

describe('the delivery log in one statement', () => {
  it('equals Prisma findMany with DELIVERY_SELECT, page by page along the cursor', async () => {
    const db = tenantClient(app.running.app.prisma, c.accountId);
    const all = await db.webhookDelivery.findMany({
      where: { webhookId: hookId },
      orderBy: { id: 'desc' },
      select: DELIVERY_SELECT,
    });
    expect(all.length).toBeGreaterThanOrEqual(7);
    expect(new Set(all.map((d) => d.attempts.length)).size).toBeGreaterThan(1);
    expect(comparable(await readDeliveryPage(db, hookId, null, 100))).toStrictEqual(comparable(all));
    for (const take of [1, 3]) {
      let before: string | null = null;
      for (let page = 0; page < 20; page++) {
        const viaPrisma: { id: string }[] = await db.webhookDelivery.findMany({
          where: { webhookId: hookId, ...(before ? { id: { lt: before } } : {}) },
          orderBy: { id: 'desc' },
          take,
          select: DELIVERY_SELECT,
        });
        expect(comparable(await readDeliveryPage(db, hookId, before, take))).toStrictEqual(comparable(viaPrisma));
        if (viaPrisma.length < take) break;
        before = viaPrisma[viaPrisma.length - 1].id;
      }
    }
  });

  it('is null for a subscription of another account or none, and empty for one without deliveries', async () => {
    const db = tenantClient(app.running.app.prisma, c.accountId);
    expect(await readDeliveryPage(db, otherHookId, null, 10)).toBeNull();
    expect(await readDeliveryPage(db, 'wh_00000000000000000000000000', null, 10)).toBeNull();
    const quiet = (
      await app.call('POST', '/v1/webhooks', {
        key: c.key,
        body: { url: `${receiver.url}/quiet`, events: ['ticket.created'] },
      })
    ).body.id;
    expect(await readDeliveryPage(db, quiet, null, 10)).toEqual([]);
  });

  it("REST pages through it and answers 404 for another account's subscription", async () => {
    const ids: string[] = [];
    let cursor = '';
    for (let page = 0; page < 20; page++) {
      const res = await app.call(
        'GET',
        `/v1/webhooks/${hookId}/deliveries?limit=3${cursor ? `&cursor=${cursor}` : ''}`,
        { key: c.key },
      );
      expect(res.status).toBe(200);
      ids.push(...res.body.data.map((d: { id: string }) => d.id));
      if (!res.body.hasMore) break;
      cursor = res.body.nextCursor;
    }
    const whole = (await app.call('GET', `/v1/webhooks/${hookId}/deliveries?limit=100`, { key: c.key })).body.data.map(
      (d: { id: string }) => d.id,
    );
    expect(ids).toEqual(whole);
    const refused = await app.call('GET', `/v1/webhooks/${otherHookId}/deliveries`, { key: c.key });
    expect(refused.status).toBe(404);
    expect(refused.body).toMatchObject({ statusCode: 404, code: 'NOT_FOUND' });
  });
});
