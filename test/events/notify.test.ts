import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LISTENER_APPLICATION_NAME } from '../../src/db/listen.ts';
import { EVENTS_CHANNEL, recordEvent } from '../../src/events/outbox.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';

// recordEvent notifies EVENTS_CHANNEL in the event's transaction; every instance LISTENs and
// runs its relay when notified (src/background.ts). The relay's poll is set to a minute here,
// so an event relayed within WITHIN_MS can only have been relayed because of the notification.
const SLOW_POLL_MS = 60_000;
const WITHIN_MS = 20_000;

const until = async (check: () => Promise<boolean> | boolean, ms = WITHIN_MS): Promise<boolean> => {
  for (const end = Date.now() + ms; Date.now() < end; await new Promise((r) => setTimeout(r, 20)))
    if (await check()) return true;
  return check();
};

/** Opens a ticket through the API; resolves once its ticket.created event is relayed (false: not within WITHIN_MS). */
async function ticketRelayed(app: TestApp, observer: TestApp = app): Promise<boolean> {
  const c = await app.customer();
  const ticket = await app.call('POST', '/v1/tickets', {
    key: c.key,
    body: { subject: 'Notify', message: 'Relayed at commit?', department: 'technical' },
  });
  expect(ticket.status).toBe(200);
  const relayed = async () => {
    const event = await observer.running.app.prisma.event.findFirst({
      where: { accountId: c.accountId, type: 'ticket.created' },
      select: { relaySeq: true },
    });
    return event?.relaySeq != null;
  };
  return until(relayed);
}

/** Counts the notifications on EVENTS_CHANNEL, as a listener of its own (not the app's). */
async function countNotifications(app: TestApp): Promise<{ count: number; close(): Promise<void> }> {
  const counter = { count: 0, close: async () => {} };
  const url = app.running.app.config.databaseUrl;
  if (url) {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    client.on('notification', (n) => n.channel === EVENTS_CHANNEL && counter.count++);
    await client.query(`LISTEN ${EVENTS_CHANNEL}`);
    counter.close = () => client.end();
  } else {
    const listening = await app.running.app.db.listen(EVENTS_CHANNEL, { onNotify: () => counter.count++ });
    counter.close = () => listening.close();
  }
  return counter;
}

describe('the relay woken at commit', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp({ relayPollMs: SLOW_POLL_MS });
  });
  afterAll(async () => {
    await app?.stop();
  });

  it('relays an event committed through the API before the slow poll could have run', async () => {
    expect(await ticketRelayed(app)).toBe(true);
  });

  it('notifies at commit only: a rolled-back transaction notifies nothing, one transaction notifies once', async () => {
    const { prisma, clock } = app.running.app;
    const c = await app.customer();
    const notifications = await countNotifications(app);
    try {
      const record = (tx: Parameters<Parameters<typeof prisma.$transaction>[0]>[0]) =>
        recordEvent(tx, c.accountId, 'server.power.changed', { serverId: 'srv_notify', action: 'stop' }, clock.now());
      await expect(
        prisma.$transaction(async (tx) => {
          await record(tx);
          throw new Error('rolled back');
        }),
      ).rejects.toThrow('rolled back');
      await prisma.$transaction(async (tx) => {
        await record(tx);
        await record(tx);
      });
      await prisma.$transaction(async (tx) => void (await record(tx)));
      // Notifications arrive in commit order: once the second commit's is in, any earlier one would be too.
      expect(await until(() => notifications.count >= 2)).toBe(true);
      expect(notifications.count).toBe(2);
      expect(await prisma.event.count({ where: { accountId: c.accountId } })).toBe(3);
    } finally {
      await notifications.close();
    }
  });
});

// Two instances on one PostgreSQL database (PGlite is single-process): needs TEST_DATABASE_URL.
const shared = Boolean(process.env.TEST_DATABASE_URL);

describe.skipIf(!shared)('the relay woken at commit, across instances', () => {
  let a: TestApp;
  let b: TestApp;
  beforeAll(async () => {
    a = await startTestApp({ relayPollMs: SLOW_POLL_MS });
    b = await startTestApp({ relayPollMs: SLOW_POLL_MS, databaseUrl: a.running.app.config.databaseUrl });
    // A records events but relays none: only B's relay, woken by the notification, can.
    await a.running.background.stop();
  });
  afterAll(async () => {
    await b?.stop();
    await a?.stop();
  });

  it("an event recorded by instance A wakes instance B's relay", async () => {
    expect(await ticketRelayed(a, b)).toBe(true);
  });

  it('the listener reconnects when its connection drops, and events committed meanwhile are relayed', async () => {
    const admin = new pg.Client({ connectionString: a.running.app.config.databaseUrl });
    await admin.connect();
    try {
      const listeners = async () =>
        (
          await admin.query<{ pid: number }>(
            'SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND application_name = $1',
            [LISTENER_APPLICATION_NAME],
          )
        ).rows;
      const [listener] = await listeners();
      expect(listener).toBeDefined();
      await admin.query('SELECT pg_terminate_backend($1)', [listener.pid]);
      expect(await ticketRelayed(a, b)).toBe(true);
      expect(await until(async () => (await listeners()).some((l) => l.pid !== listener.pid))).toBe(true);
      expect(await ticketRelayed(a, b)).toBe(true);
      expect(b.logs.some((l) => l.includes('event listener connection lost'))).toBe(true);
    } finally {
      await admin.end();
    }
  });
});
