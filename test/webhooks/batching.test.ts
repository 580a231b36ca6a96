import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordEvent } from '../../src/events/outbox.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { runDueWork, startReceiver, type Receiver } from '../helpers/webhooks.ts';

// Attempt outcomes are written many per statement (src/modules/webhooks/delivery.ts, Recorder).
// On the embedded database a write finishes before the next response is read, so without the
// short wait every outcome was a statement of its own: 190 deliveries/s instead of 1,000.
// The fan-out is in the relay's one statement per relayed batch (src/events/relay.ts, src/modules/webhooks/fan-out.ts).

const statements: string[] = [];
let app: TestApp;
let receiver: Receiver;
beforeAll(async () => {
  app = await startTestApp({ webhookAllowPrivate: true }, { onQuery: (sql) => statements.push(sql) });
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver?.close();
  await app?.stop();
});

describe('webhook delivery outcomes', () => {
  it('120 deliveries are queued in one statement and recorded in a handful, every one of them', async () => {
    const c = await app.customer();
    for (const path of ['/a', '/b']) {
      expect(
        (await app.call('POST', '/v1/webhooks', { key: c.key, body: { url: receiver.url + path, events: ['*'] } }))
          .status,
      ).toBe(200);
    }
    const prisma = app.running.app.prisma;
    statements.length = 0;
    await prisma.$transaction(async (tx) => {
      for (let i = 0; i < 60; i++)
        await recordEvent(
          tx,
          c.accountId,
          'server.power.changed',
          { serverId: `srv_batch${i}`, action: 'stop' },
          app.running.app.clock.now(),
        );
    });
    await runDueWork(app);

    expect(receiver.received).toHaveLength(120);
    // The fan-out is part of the relay's one statement (numbering, cursor, delivery rows), and
    // the 60 events commit together, so one relay run queued all 120 rows (one `now` per run;
    // the clock moves with real time).
    const fanOuts = statements.filter((sql) => sql.includes('INSERT INTO "WebhookDelivery" ('));
    expect(fanOuts.every((sql) => sql.includes('UPDATE "RelayCursor"') && sql.includes('UPDATE "Event"'))).toBe(true);
    const queuedAt = await prisma.webhookDelivery.groupBy({
      by: ['createdAt'],
      where: { accountId: c.accountId },
      _count: true,
    });
    expect(queuedAt.map((g) => g._count)).toEqual([120]);
    const writes = statements.filter((sql) => sql.includes('INSERT INTO "WebhookDeliveryAttempt"')).length;
    expect(writes).toBeGreaterThanOrEqual(2); // at most 100 outcomes per statement
    expect(writes).toBeLessThanOrEqual(30);
    const rows = await prisma.webhookDelivery.groupBy({
      by: ['status'],
      where: { accountId: c.accountId },
      _count: true,
    });
    expect(rows).toEqual([{ status: 'succeeded', _count: 120 }]);
    expect(await prisma.webhookDeliveryAttempt.count({ where: { accountId: c.accountId } })).toBe(120);
  });
});
