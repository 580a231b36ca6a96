import { randomBytes } from 'node:crypto';
import { ID_PREFIX, newId } from '../src/db/ids.ts';
import { recordEvent } from '../src/events/outbox.ts';
import { ownershipTxt } from '../src/modules/domains/ownership.ts';
import { MAX_ATTEMPTS } from '../src/modules/webhooks/backoff.ts';
import type { BenchApp } from './lib.ts';

/**
 * Scenario 8's second account: the other nested lists of issue #21, each with data in every
 * field its body has. Made through the customer and operator APIs, as a customer's would be,
 * except the delivery log (written straight into the database, like `loadServers`' rows:
 * attempts against a real receiver would keep changing it while it is measured).
 */
export interface OtherLists {
  ticketId: string;
  webhookId: string;
  poolId: string;
}

const INVOICES = 25;
const TICKETS = 20;
const THREAD_REPLIES = 4;
const DELIVERIES = 25;
const HOSTING_ACCOUNTS = 3;
const POOL_SERVERS = 4;

export async function loadOtherLists(app: BenchApp, customer: { accountId: string; key: string }): Promise<OtherLists> {
  const call = async (method: string, path: string, body: unknown, token: string) => {
    const res = await fetch(app.url + path, {
      method,
      headers: {
        Authorization: `Bearer ${token}`,
        ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    if (res.status >= 300) throw new Error(`${method} ${path}: HTTP ${res.status} ${text.slice(0, 300)}`);
    return JSON.parse(text);
  };
  const api = (method: string, path: string, body?: unknown) => call(method, `/v1${path}`, body, customer.key);
  const admin = (method: string, path: string, body?: unknown) =>
    call(method, `/admin${path}`, body, app.running.app.config.adminToken!);
  const account = `/accounts/${customer.accountId}`;

  // Hosting accounts, active (the clock advance runs the provisioning), one with a custom domain pending.
  const hosting: string[] = [];
  for (let i = 0; i < HOSTING_ACCOUNTS; i++)
    hosting.push(
      (await admin('POST', `${account}/hosting`, { domain: `bench-${randomBytes(4).toString('hex')}.example.com` })).id,
    );
  await admin('POST', '/clock/advance', { seconds: 61 });
  const shop = `shop-${randomBytes(4).toString('hex')}.example.com`;
  await admin('PUT', `/dns/${shop}`, { txt: [ownershipTxt(customer.accountId, shop)] });
  await api('PUT', `/hosting/${hosting[0]}/custom-domain`, { domain: shop });

  // Two pools; the first with servers (two addresses each from its block), provisioned by the clock advance.
  const pool = await api('POST', '/pools', {
    productId: 'pool-fra1',
    label: 'bench-pool',
    vcpu: 8,
    ram2gb: 8,
    disk100: 2,
    ip16: 1,
  });
  await api('POST', '/pools', {
    productId: 'pool-fra1',
    label: 'bench-pool-small',
    vcpu: 2,
    ram2gb: 1,
    disk100: 1,
    ip16: 0,
  });
  for (let i = 0; i < POOL_SERVERS; i++) {
    await api('POST', `/pools/${pool.id}/servers`, {
      productId: 'std-2c-4g-50',
      label: `pool-${i}`,
      osTemplate: 'ubuntu-24.04',
      ipCount: i % 2 ? 1 : 2,
    });
  }
  await admin('POST', '/clock/advance', { seconds: 180 });

  // Invoices of three lines, every third paid.
  for (let i = 0; i < INVOICES; i++) {
    const items = [0, 1, 2].map((k) => ({ description: `Bench item ${i}.${k}`, amountUsdCents: 100 * (i + 1) + k }));
    const invoice = await admin('POST', `${account}/invoices`, { items });
    if (i % 3 === 0) await admin('POST', `/invoices/${invoice.id}/pay`, { gateway: 'card' });
  }

  // Tickets; the newest with a thread of customer and staff replies, one closed.
  let ticketId = '';
  for (let i = 0; i < TICKETS; i++)
    ticketId = (
      await api('POST', '/tickets', {
        subject: `Bench ticket ${i}`,
        message: `First message of ticket ${i}.`,
        priority: i % 4 ? 'normal' : 'high',
      })
    ).id;
  for (let i = 0; i < THREAD_REPLIES; i++) {
    await admin('POST', `/tickets/${ticketId}/replies`, { body: `Staff reply ${i}.` });
    await api('POST', `/tickets/${ticketId}/reply`, { body: `Customer reply ${i}.` });
  }
  const tickets = await api('GET', `/tickets?limit=2`);
  await api('POST', `/tickets/${tickets.data[1].id}/close`);

  // A paused subscription to a kind nothing here fires, so nothing adds to or attempts its log.
  const webhook = await api('POST', '/webhooks', {
    url: 'http://127.0.0.1:9/bench',
    events: ['domain.registered'],
    description: 'bench',
  });
  await api('PATCH', `/webhooks/${webhook.id}`, { isActive: false });
  await loadDeliveries(app, customer.accountId, webhook.id);
  return { ticketId, webhookId: webhook.id, poolId: pool.id };
}

/** Succeeded, failed and pending deliveries with 1 to 3 attempts, their events recorded in the same transaction (the relay's fan-out then finds them queued). */
async function loadDeliveries(app: BenchApp, accountId: string, webhookId: string): Promise<void> {
  const now = app.running.app.clock.now().getTime();
  await app.running.app.prisma.$transaction(async (tx) => {
    const deliveries = [];
    const attempts = [];
    for (let i = 0; i < DELIVERIES; i++) {
      const at = now - (DELIVERIES - i) * 60_000;
      const eventId = await recordEvent(
        tx,
        accountId,
        'domain.registered',
        {
          domainId: `dom_bench${i}`,
          domain: `bench-${i}.example.com`,
          periodYears: 1,
          expiresAt: new Date(at + 365 * 86_400_000).toISOString(),
        },
        new Date(at),
      );
      const id = newId(ID_PREFIX.webhookDelivery, at);
      const outcome = i % 5 === 0 ? 'failed' : i % 5 === 1 ? 'pending' : 'succeeded';
      const tries = outcome === 'failed' ? 3 : outcome === 'pending' ? 1 : 1 + (i % 2);
      for (let n = 1; n <= tries; n++) {
        const ok = outcome === 'succeeded' && n === tries;
        attempts.push({
          id: newId(ID_PREFIX.webhookAttempt, at + n * 1000),
          accountId,
          deliveryId: id,
          number: n,
          startedAt: new Date(at + n * 1000),
          durationMs: 40 + n,
          statusCode: ok ? 200 : n % 2 ? 500 : null,
          error: ok ? null : n % 2 ? 'HTTP 500' : 'timeout after 10 s',
          succeeded: ok,
          manual: false,
        });
      }
      const last = attempts[attempts.length - 1];
      deliveries.push({
        id,
        accountId,
        webhookId,
        eventId,
        eventType: 'domain.registered',
        status: outcome,
        attemptCount: tries,
        maxAttempts: outcome === 'failed' ? tries : MAX_ATTEMPTS,
        nextAttemptAt: outcome === 'pending' ? new Date(now + 3_600_000) : null,
        lastStatusCode: last.statusCode,
        lastError: last.error,
        lastAttemptAt: last.startedAt,
        createdAt: new Date(at),
      });
    }
    await tx.webhookDelivery.createMany({ data: deliveries });
    await tx.webhookDeliveryAttempt.createMany({ data: attempts });
  });
}
