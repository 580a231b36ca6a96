import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { idTimeMs } from '../../src/db/ids.ts';
import { recordEvent } from '../../src/events/outbox.ts';
import { relayBatch, relayCursorPosition } from '../../src/events/relay.ts';
import { queueDeliveriesSql } from '../../src/modules/webhooks/fan-out.ts';
import type { RelayedEvent } from '../../src/events/envelope.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';

// The relay is one statement: lock the cursor, number the committed events, move the cursor,
// queue the deliveries (src/events/relay.ts). On PostgreSQL (TEST_DATABASE_URL) the relays
// below really race on separate connections; on the embedded database they take turns.
// Without the statement's check that its snapshot saw the cursor it locked, the race test
// fails on PostgreSQL every time (holes: a relay renumbering what another had just relayed).

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp({ webhookAllowPrivate: true });
});
afterAll(async () => {
  await app?.stop();
});

/** Relays until nothing is left (waiting out the app's own relay when it holds the cursor). */
async function relayAll(): Promise<void> {
  for (;;) {
    const events = await relayBatch(app.running.app.prisma, app.running.app.clock.now(), queueDeliveriesSql);
    if (events === 'busy') await new Promise((r) => setTimeout(r, 5));
    else if (!events.length) return;
  }
}

describe('event relay', () => {
  it('queues one delivery per matching subscription, with ids in the form of every other id', async () => {
    const c = await app.customer();
    const hook = async (events: string[]) =>
      (
        await app.call<{ id: string }>('POST', '/v1/webhooks', {
          key: c.key,
          body: { url: 'http://127.0.0.1:9/h', events },
        })
      ).body.id;
    const all = await hook(['*']);
    const power = await hook(['server.power.changed']);
    await hook(['ticket.replied']);
    const prisma = app.running.app.prisma;
    const now = app.running.app.clock.now();
    const ids = await prisma.$transaction(async (tx) => [
      await recordEvent(tx, c.accountId, 'server.power.changed', { serverId: 'srv_relay1', action: 'stop' }, now),
      await recordEvent(tx, c.accountId, 'server.terminated', { serverId: 'srv_relay1' }, now),
    ]);
    await relayAll();

    const rows = await prisma.webhookDelivery.findMany({
      where: { eventId: { in: ids } },
      select: { id: true, webhookId: true, eventId: true, eventType: true, createdAt: true },
    });
    const pairs = rows.map((r) => `${r.eventType}→${r.webhookId}`).sort();
    expect(pairs).toEqual(
      [`server.terminated→${all}`, `server.power.changed→${all}`, `server.power.changed→${power}`].sort(),
    );
    for (const r of rows) {
      expect(r.id).toMatch(/^whd_[0-9a-hjkmnp-tv-z]{26}$/);
      expect(idTimeMs(r.id)).toBe(r.createdAt.getTime());
    }
    expect(new Set(rows.map((r) => r.id.slice(14))).size).toBe(rows.length);
  });

  it('relays racing with each other and with writers number every committed event once, densely, and publish each once', {
    timeout: 60_000,
  }, async () => {
    const c = await app.customer();
    const prisma = app.running.app.prisma;
    const before = await relayCursorPosition(prisma);
    const published: RelayedEvent[] = [];
    let writing = true;
    const relays = Array.from({ length: 6 }, async () => {
      for (let quiet = 0; writing || quiet < 3; ) {
        const events = await relayBatch(prisma, app.running.app.clock.now(), queueDeliveriesSql, 7);
        if (events === 'busy') continue;
        published.push(...events);
        quiet = events.length ? 0 : quiet + 1;
      }
    });
    const recorded: string[] = [];
    await Promise.all(
      Array.from({ length: 8 }, async (_, w) => {
        for (let i = 0; i < 25; i++) {
          recorded.push(
            ...(await prisma.$transaction(async (tx) => [
              await recordEvent(
                tx,
                c.accountId,
                'server.power.changed',
                { serverId: `srv_race${w}`, action: 'start' },
                app.running.app.clock.now(),
              ),
              await recordEvent(
                tx,
                c.accountId,
                'server.power.changed',
                { serverId: `srv_race${w}`, action: 'stop' },
                app.running.app.clock.now(),
              ),
            ])),
          );
        }
      }),
    );
    writing = false;
    await Promise.all(relays);
    await relayAll(); // what the app's own relay (woken by recordEvent's notification) took is in the table, not in `published`

    const events = await prisma.event.findMany({
      where: { relaySeq: { gt: before } },
      select: { id: true, relaySeq: true },
      orderBy: { relaySeq: 'asc' },
    });
    const after = await relayCursorPosition(prisma);
    // Dense: every number after the old cursor is used exactly once, up to the new cursor.
    expect(events.map((e) => e.relaySeq)).toEqual(
      Array.from({ length: Number(after - before) }, (_, i) => before + BigInt(i) + 1n),
    );
    expect(recorded.every((id) => events.some((e) => e.id === id))).toBe(true);
    // Each event published once, under the number it has in the table.
    const ours = published.filter((p) => recorded.includes(p.envelope.id));
    expect(new Set(ours.map((p) => p.envelope.id)).size).toBe(ours.length);
    const numbers = new Map(events.map((e) => [e.id, e.relaySeq]));
    expect(ours.every((p) => numbers.get(p.envelope.id) === p.position)).toBe(true);
  });
});
