import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALL_SCOPES } from '../../src/scopes.ts';
import { listOperations } from '../../src/schema/operation.ts';
import { restView } from '../../src/schema/rest-view.ts';
import { getSchema } from '../../src/schema/index.ts';
import { startTestApp, type Customer, type TestApp } from '../helpers/app.ts';
import { advance } from '../helpers/servers.ts';
import { startReceiver, type Receiver } from '../helpers/webhooks.ts';
import { buildEstate, type Estate } from '../security/estate.ts';
import { argsFor, restRequest } from '../security/requests.ts';

/**
 * Conditional reads (docs/REFERENCE.md: Conditional requests): every GET operation of /v1 answers with a
 * strong ETag, If-None-Match naming it answers 304 with no body, and a 304 does not count
 * against the per-credential limit. Whatever changes a body (a write, a provider job, the
 * simulated clock alone) changes the tag: the old one then gets the new body, never a 304.
 */
// A password-session operation answers every key 403 (test/account/settings.test.ts drives it).
const reads = listOperations(restView(getSchema())).filter((op) => op.method === 'GET' && !op.meta.caller);

let app: TestApp;
let receiver: Receiver;
let E: Estate;

beforeAll(async () => {
  app = await startTestApp({ webhookAllowPrivate: true });
  receiver = await startReceiver();
  E = await buildEstate(app, await app.customer({ walletBalanceUsdCents: 1_000_000 }), receiver);
}, 180_000);

afterAll(async () => {
  await receiver?.close();
  await app?.stop();
});

const get = (key: string, url: string, ifNoneMatch?: string) =>
  app.call('GET', url, { key, headers: ifNoneMatch === undefined ? {} : { 'If-None-Match': ifNoneMatch } });
const remaining = (r: { headers: Headers }) => Number(r.headers.get('x-ratelimit-remaining'));

/** A second key of the estate's account: its own budget of 120 for one test. */
async function freshKey(accountId: string): Promise<string> {
  const res = await app.admin('POST', `/admin/accounts/${accountId}/api-keys`, { scopes: ALL_SCOPES });
  expect(res.status, res.text).toBe(201);
  return res.body.key;
}

describe('ETag and 304 on every GET operation', () => {
  it('each answers 200 with a strong ETag; If-None-Match with it answers 304, no body, the same ETag and the limit headers', async () => {
    expect(reads.length).toBeGreaterThanOrEqual(40);
    const key = await freshKey(E.customer.accountId);
    const failures: string[] = [];
    for (const op of reads) {
      const req = restRequest(op, argsFor(op, E));
      const first = await get(key, req.url);
      const etag = first.headers.get('etag');
      if (first.status !== 200 || !etag || !/^"[A-Za-z0-9_-]{22}"$/.test(etag)) {
        failures.push(`${op.meta.rest}: ${first.status} ETag ${etag}`);
        continue;
      }
      const again = await get(key, req.url, etag);
      // Server stats move with time (uptime counters): a new body between the two reads is a new tag, never a 304.
      if (again.status === 200 && again.text !== first.text && again.headers.get('etag') !== etag) continue;
      if (
        again.status !== 304 ||
        again.text !== '' ||
        again.headers.get('etag') !== etag ||
        again.headers.get('x-ratelimit-limit') !== '120' ||
        again.headers.has('content-length')
      ) {
        failures.push(
          `${op.meta.rest}: conditional → ${again.status} ETag ${again.headers.get('etag')} body ${JSON.stringify(again.text.slice(0, 80))}`,
        );
      }
    }
    expect(failures).toEqual([]);
  });

  it('If-None-Match follows RFC 9110: weak comparison, lists, "*"; another tag gets the body', async () => {
    const url = `/v1/servers/${E.serverId}`;
    const first = await get(E.customer.key, url);
    const etag = first.headers.get('etag')!;
    expect((await get(E.customer.key, url, `W/${etag}`)).status).toBe(304);
    expect((await get(E.customer.key, url, `"nope", ${etag}`)).status).toBe(304);
    expect((await get(E.customer.key, url, `W/"nope",W/${etag} , "other"`)).status).toBe(304);
    expect((await get(E.customer.key, url, '*')).status).toBe(304);
    const other = await get(E.customer.key, url, '"nope", W/"also-not"');
    expect(other.status).toBe(200);
    expect(other.body).toEqual(first.body);
    expect(other.headers.get('etag')).toBe(etag);
    // A malformed header matches nothing: the body, as without it.
    expect((await get(E.customer.key, url, etag.slice(1, -1))).status).toBe(200);
  });

  it('a 404 stays a 404 (with If-None-Match: * too); a POST is never 304', async () => {
    const missing = await get(E.customer.key, '/v1/servers/srv_00000000000000000000000000', '*');
    expect(missing.status).toBe(404);
    expect(missing.body.statusCode).toBe(404);
    expect(missing.headers.has('etag')).toBe(false);
    const reply = await app.call('POST', `/v1/tickets/${E.ticketId}/reply`, {
      key: E.customer.key,
      body: { body: 'Any news?' },
      headers: { 'If-None-Match': '*' },
    });
    expect(reply.status, reply.text).toBe(200);
    expect(reply.headers.has('etag')).toBe(false);
  });
});

describe('no stale 304: the old tag gets the new body', () => {
  async function expectChanged(url: string, before: { etag: string; body: unknown }, key = E.customer.key) {
    const after = await get(key, url, before.etag);
    expect(after.status, after.text).toBe(200);
    expect(after.body).not.toEqual(before.body);
    expect(after.headers.get('etag')).not.toBe(before.etag);
    // …and the new tag is current.
    expect((await get(key, url, after.headers.get('etag')!)).status).toBe(304);
    return after;
  }
  const snapshot = async (url: string, key = E.customer.key) => {
    const r = await get(key, url);
    expect(r.status, r.text).toBe(200);
    return { etag: r.headers.get('etag')!, body: r.body };
  };

  it('after a change through the API: a ticket reply, a server powered off, a webhook edited', async () => {
    const ticket = `/v1/tickets/${E.ticketId}`;
    const t0 = await snapshot(ticket);
    expect(
      (await app.call('POST', `${ticket}/reply`, { key: E.customer.key, body: { body: 'One more thing' } })).status,
    ).toBe(200);
    await expectChanged(ticket, t0);

    const server = `/v1/servers/${E.serverId}`;
    const list = '/v1/servers';
    const s0 = await snapshot(server);
    const l0 = await snapshot(list);
    expect((await app.call('POST', `${server}/power/stop`, { key: E.customer.key })).status).toBe(200);
    await expectChanged(server, s0);
    await expectChanged(list, l0);

    const hook = `/v1/webhooks/${E.webhookId}`;
    const h0 = await snapshot(hook);
    expect((await app.call('PATCH', hook, { key: E.customer.key, body: { description: 'renamed' } })).status).toBe(200);
    const after = await expectChanged(hook, h0);
    expect(after.body.description).toBe('renamed');
  });

  it('after a provider job finishes on a clock advance: provisioning → running', async () => {
    const order = await app.admin('POST', `/admin/accounts/${E.customer.accountId}/servers`, {
      productId: 'std-2c-4g-50',
      label: 'etag-1',
      os: 'linux',
      osTemplate: 'ubuntu-24.04',
    });
    expect(order.status, order.text).toBe(201);
    const url = `/v1/servers/${order.body.id}`;
    const before = await snapshot(url);
    expect((before.body as { status: string }).status).toBe('provisioning');
    expect((await get(E.customer.key, url, before.etag)).status).toBe(304);
    await advance(app, 180);
    const after = await expectChanged(url, before);
    expect(after.body.status).toBe('running');
  });

  it('after the simulated clock alone moves: temporary WAF-log access lapses (active → false)', async () => {
    const url = `/v1/hosting/${E.hostingId}/waf/access`;
    const granted = await app.call('POST', url, { key: E.customer.key });
    expect(granted.status, granted.text).toBe(200);
    const before = await snapshot(url);
    expect(before.body).toMatchObject({ active: true });
    expect((await get(E.customer.key, url, before.etag)).status).toBe(304);
    const tick = await app.admin('POST', '/admin/clock/advance', { seconds: 61 * 60 });
    expect(tick.status, tick.text).toBe(200);
    const after = await expectChanged(url, before);
    expect(after.body).toEqual({ active: false, expiresAt: null });
  });
});

describe('a 304 is not counted against the limit (120 per minute per credential)', () => {
  let key: string;
  beforeAll(async () => {
    key = await freshKey(E.customer.accountId);
  });

  it('130 conditional GETs that hit 304 give no 429 and leave X-RateLimit-Remaining unchanged; 200s still count', async () => {
    const url = `/v1/servers/${E.serverId}`;
    const first = await get(key, url);
    expect(remaining(first)).toBe(119);
    const etag = first.headers.get('etag')!;
    const statuses = new Set<number>();
    const left = new Set<number>();
    for (let i = 0; i < 130; i++) {
      const r = await get(key, url, etag);
      statuses.add(r.status);
      left.add(remaining(r));
    }
    expect([...statuses]).toEqual([304]);
    expect([...left]).toEqual([119]);
    // A conditional GET that is not a 304, and a plain one, each spend a point.
    expect(remaining(await get(key, url, '"stale"'))).toBe(118);
    expect(remaining(await get(key, url))).toBe(117);
    // So do refusals of conditional reads (a 404, an unknown query parameter).
    expect(remaining(await get(key, '/v1/servers/srv_00000000000000000000000000', '*'))).toBe(116);
    const bad = await get(key, `${url}?nope=1`, etag);
    expect(bad.status).toBe(400);
    expect(remaining(bad)).toBe(115);
  });

  it('is exact under concurrency: with one point left, one of twenty racing conditional GETs gets its 200, the rest 429; a spent window refuses 304s too', async () => {
    const c: Customer = await app.customer();
    const url = '/v1/account';
    const first = await get(c.key, url);
    const etag = first.headers.get('etag')!;
    for (let i = 0; i < 118; i++) expect((await get(c.key, url)).status).toBe(200);
    const raced = await Promise.all(Array.from({ length: 20 }, () => get(c.key, url, '"stale"')));
    const codes = raced.map((r) => r.status).sort();
    expect(codes.filter((s) => s === 200)).toHaveLength(1);
    expect(codes.filter((s) => s === 429)).toHaveLength(19);
    for (const r of raced.filter((x) => x.status === 429)) {
      expect(r.body.code).toBe('RATE_LIMITED');
      expect(remaining(r)).toBe(0);
      expect(Number(r.headers.get('retry-after'))).toBeGreaterThan(0);
    }
    // The window is spent: the limit is checked before the work, so even a request that would be 304 waits.
    const spent = await get(c.key, url, etag);
    expect(spent.status).toBe(429);
  });
});
