import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EVENT_TYPES } from '../../src/events/catalog.ts';
import { startTestApp, type Json, type TestApp } from '../helpers/app.ts';
import { subscribeEvents, type Subscriber } from '../helpers/graphql-ws.ts';
import { activeHosting, upload } from '../helpers/hosting.ts';
import { expectError, runningServer } from '../helpers/servers.ts';
import { parseSignature, runDueWork, startReceiver, type Receiver } from '../helpers/webhooks.ts';

// The kinds of revision 1.16 that let an open server page or hosting control-panel tab see a
// change made elsewhere: snapshots, add-ons and the panel's changes. Each is recorded once per
// change with exactly its declared payload and reaches a signed webhook and a graphql-ws
// subscriber; a refused change records nothing; a credential without the area's read scope sees none.

const SERVER_KINDS = [
  'server.snapshot.created',
  'server.snapshot.deleted',
  'server.snapshot.reverted',
  'server.addon.attached',
  'server.addon.detached',
] as const;
const NEW_KINDS = [...SERVER_KINDS, 'hosting.panel.changed'] as const;

let app: TestApp;
let receiver: Receiver;
beforeAll(async () => {
  app = await startTestApp({ webhookAllowPrivate: true });
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver?.close();
  await app?.stop();
});

const hmac = (secret: string, t: number, body: string) =>
  createHmac('sha256', secret).update(`${t}.${body}`).digest('hex');

/** A customer with every scope, a webhook on `kinds` and a graphql-ws subscriber to them. */
async function watched(kinds: readonly string[], path: string) {
  const c = await app.customer({ walletBalanceUsdCents: 50_000 });
  const hook = await app.call('POST', '/v1/webhooks', {
    key: c.key,
    body: { url: receiver.url + path, events: kinds, description: 'more events' },
  });
  expect(hook.status, hook.text).toBe(200);
  const sub = await subscribeEvents(app.url, c.key, { types: kinds });
  return { c, kinds, secret: hook.body.secret as string, sub };
}

async function rows(accountId: string) {
  const all = await app.running.app.prisma.event.findMany({ where: { accountId }, orderBy: { seq: 'asc' } });
  return all.map((e) => ({ id: e.id, type: e.type, data: e.data as Json }));
}

/** The payload holds exactly the kind's declared fields, each of its declared JSON type. */
function expectDeclared(type: string, data: Json) {
  const fields = EVENT_TYPES[type as keyof typeof EVENT_TYPES].fields as Record<string, { type: unknown }>;
  expect(Object.keys(data).sort(), type).toEqual(Object.keys(fields).sort());
  for (const [field, s] of Object.entries(fields)) {
    const value = data[field];
    const json = Number.isInteger(value) ? 'integer' : typeof value;
    expect([s.type].flat(), `${type}.${field}`).toContain(json);
  }
}

/** Every watched event recorded reached the subscriber and the webhook (signed), in the same envelope. */
async function delivered(
  w: { c: { accountId: string }; kinds: readonly string[]; secret: string; sub: Subscriber },
  path: string,
) {
  const recorded = (await rows(w.c.accountId)).filter((r) => w.kinds.includes(r.type));
  for (const r of recorded) expectDeclared(r.type, r.data);
  await w.sub.waitFor(recorded.length);
  expect(w.sub.events.map((e) => [e.id, e.type, e.data])).toEqual(recorded.map((r) => [r.id, r.type, r.data]));
  await runDueWork(app);
  // Webhook delivery is unordered (REFERENCE: Webhooks): compare what arrived in the events' order.
  const got = receiver.received.filter((r) => r.path === path);
  const order = (id: string) => recorded.findIndex((r) => r.id === id);
  const inOrder = [...got].sort((a, b) => order(a.json.id) - order(b.json.id));
  expect(inOrder.map((r) => [r.json.id, r.json.type, r.json.data])).toEqual(
    recorded.map((r) => [r.id, r.type, r.data]),
  );
  for (const r of got) {
    const { t, v1 } = parseSignature(r.headers['x-service-signature']);
    expect(v1).toBe(hmac(w.secret, t, r.body));
  }
  return recorded.map((r) => ({ type: r.type, data: r.data }));
}

describe('the catalogue', () => {
  it('declares the new kinds with their area read scope; the document and the operations name them', async () => {
    expect(Object.fromEntries(NEW_KINDS.map((k) => [k, EVENT_TYPES[k].scope]))).toEqual({
      'server.snapshot.created': 'servers:read',
      'server.snapshot.deleted': 'servers:read',
      'server.snapshot.reverted': 'servers:read',
      'server.addon.attached': 'servers:read',
      'server.addon.detached': 'servers:read',
      'hosting.panel.changed': 'hosting:read',
    });
    const doc = await app.call('GET', '/v1/openapi.json');
    expect(doc.status).toBe(200);
    for (const k of NEW_KINDS)
      expect(doc.body.components.schemas[`Event_${k.replace(/\./g, '_')}`].properties.type.const).toBe(k);
    const says = (path: string, method: string) => doc.body.paths[path][method].description as string;
    expect(says('/servers/{id}/snapshots', 'post')).toContain('Fires `server.snapshot.created`');
    expect(says('/servers/{id}/addons', 'post')).toContain('Fires `server.addon.attached`');
    expect(says('/hosting/{id}/cron', 'put')).toContain('Fires `hosting.panel.changed`');
    expect(says('/hosting/{id}/files/upload', 'post')).toContain('Fires `hosting.panel.changed`');
    expect(says('/hosting/{id}/ssh-terminal/launch', 'post')).not.toContain('Fires');
    expect(says('/hosting/{id}/cron', 'get')).not.toContain('Fires');
  });
});

describe('server events', () => {
  it('snapshot take / revert / delete and add-on attach / detach: one event each', async () => {
    const path = '/servers';
    const w = await watched(SERVER_KINDS, path);
    try {
      const id = await runningServer(app, w.c);
      const snap = await app.call('POST', `/v1/servers/${id}/snapshots`, {
        key: w.c.key,
        body: { name: 'before upgrade' },
      });
      expect(snap.status, snap.text).toBe(200);
      const revert = await app.call('POST', `/v1/servers/${id}/snapshots/${snap.body.id}/revert`, { key: w.c.key });
      expect(revert.status, revert.text).toBe(200);
      expect(revert.body.status).toBe('restoring');
      // Refused while restoring: nothing recorded.
      expectError(await app.call('POST', `/v1/servers/${id}/snapshots/${snap.body.id}/revert`, { key: w.c.key }), 409);
      await app.admin('POST', '/admin/clock/advance', { seconds: 120 });
      expect((await app.call('DELETE', `/v1/servers/${id}/snapshots/${snap.body.id}`, { key: w.c.key })).status).toBe(
        200,
      );
      const listed = (await app.call('GET', `/v1/servers/${id}/addons`, { key: w.c.key })).body.data.find(
        (a: { id: string }) => a.id === 'addon-ipv4-1',
      );
      const attached = await app.call('POST', `/v1/servers/${id}/addons`, {
        key: w.c.key,
        body: { addonId: 'addon-ipv4-1' },
      });
      expect(attached.status, attached.text).toBe(200);
      // Refused: the same type again, an unknown add-on, an add-on not attached, a snapshot gone.
      expectError(
        await app.call('POST', `/v1/servers/${id}/addons`, { key: w.c.key, body: { addonId: 'addon-ipv4-1' } }),
        400,
      );
      expectError(
        await app.call('POST', `/v1/servers/${id}/addons`, { key: w.c.key, body: { addonId: 'addon-nope' } }),
        400,
      );
      expect((await app.call('DELETE', `/v1/servers/${id}/addons/addon-ipv4-1`, { key: w.c.key })).status).toBe(200);
      expectError(await app.call('DELETE', `/v1/servers/${id}/addons/addon-ipv4-1`, { key: w.c.key }), 404);
      expectError(await app.call('DELETE', `/v1/servers/${id}/snapshots/${snap.body.id}`, { key: w.c.key }), 404);

      const snapshot = { serverId: id, snapshotId: snap.body.id, name: 'before upgrade' };
      expect(await delivered(w, path)).toEqual([
        { type: 'server.snapshot.created', data: snapshot },
        { type: 'server.snapshot.reverted', data: snapshot },
        { type: 'server.snapshot.deleted', data: snapshot },
        {
          type: 'server.addon.attached',
          data: {
            serverId: id,
            addonId: 'addon-ipv4-1',
            type: 'extra_ip',
            chargedUsdCents: listed.prorated_usd_cents,
          },
        },
        { type: 'server.addon.detached', data: { serverId: id, addonId: 'addon-ipv4-1', type: 'extra_ip' } },
      ]);
      expect(attached.body.chargedUsdCents).toBe(listed.prorated_usd_cents);
    } finally {
      await w.sub.dispose();
    }
  });
});

describe('hosting.panel.changed', () => {
  it('each control-panel change records one event naming its part and action, never a secret or content', async () => {
    const path = '/hosting';
    const w = await watched(['hosting.panel.changed'], path);
    try {
      const id = await activeHosting(app, w.c);
      const call = (method: string, p: string, body?: object) =>
        app.call(method, `/v1/hosting/${id}${p}`, { key: w.c.key, ...(body ? { body } : {}) });
      const ok = async (res: Promise<{ status: number; text: string }>) => {
        const r = await res;
        expect(r.status, r.text).toBe(200);
        return r;
      };
      const jobs = [{ schedule: '*/5 * * * *', command: 'php /home/public_html/cron.php' }];
      await ok(call('POST', '/databases', { suffix: 'shop' }));
      await ok(call('PUT', '/cron', { jobs }));
      await ok(call('PUT', '/cron', { jobs })); // the same lines: nothing changed, no event
      const content = 'the page body, never in an event';
      await ok(call('PUT', '/files', { path: '/public_html/post.md', content }));
      await ok(call('POST', '/files/mkdir', { path: '/public_html/admin' }));
      await ok(call('POST', '/files/rename', { from: '/public_html/post.md', to: '/public_html/note.md' }));
      const up = await upload(app, w.c.key, id, { path: '/public_html', name: 'a.txt', data: Buffer.from('hi') });
      expect(up.status, up.text).toBe(200);
      await ok(call('DELETE', '/files?path=/public_html/note.md'));
      const password = 'a secret door 1234';
      await ok(call('POST', '/protected-dirs', { path: '/public_html/admin', basic_user: 'ada', password }));
      await ok(call('DELETE', '/protected-dirs?path=/public_html/admin'));
      const backup = await ok(call('POST', '/backups'));
      const backupId = (backup as unknown as { body: { id: string } }).body.id;
      await ok(call('POST', `/backups/${backupId}/restore`));
      await ok(call('DELETE', `/backups/${backupId}`));
      await ok(call('DELETE', `/databases/${(await call('GET', '/databases')).body.data[0].name}`));
      await ok(call('POST', '/ssh-terminal/access'));
      await ok(call('POST', '/ssh-terminal/access')); // already enabled: no event
      // A browser-SSH session hands out a token: its launch and stop are not events.
      await ok(call('POST', '/ssh-terminal/launch'));
      await ok(call('POST', '/ssh-terminal/stop'));
      await ok(call('POST', '/cert/retry'));
      // Reads record nothing.
      await ok(call('GET', '/cron'));
      await ok(call('GET', '/files?path=/public_html'));

      const changed = (part: string, action: string) => ({
        type: 'hosting.panel.changed',
        data: { hostingId: id, part, action },
      });
      expect(await delivered(w, path)).toEqual([
        changed('databases', 'created'),
        changed('cron', 'set'),
        changed('files', 'written'),
        changed('files', 'created'),
        changed('files', 'renamed'),
        changed('files', 'uploaded'),
        changed('files', 'deleted'),
        changed('protectedDirs', 'set'),
        changed('protectedDirs', 'deleted'),
        changed('backups', 'created'),
        changed('backups', 'restored'),
        changed('backups', 'deleted'),
        changed('databases', 'deleted'),
        changed('ssh', 'enabled'),
        changed('certificate', 'issued'),
      ]);
      const text = JSON.stringify(await rows(w.c.accountId));
      for (const secret of [password, content, 'sshs_', '$2']) expect(text).not.toContain(secret);
    } finally {
      await w.sub.dispose();
    }
  });

  it('refused panel changes record nothing', async () => {
    const c = await app.customer();
    const id = await activeHosting(app, c);
    const before = (await rows(c.accountId)).length;
    const call = (method: string, p: string, body?: object) =>
      app.call(method, `/v1/hosting/${id}${p}`, { key: c.key, ...(body ? { body } : {}) });
    expect((await call('POST', '/databases', { suffix: 'one' })).status).toBe(200);
    expectError(await call('POST', '/databases', { suffix: 'one' }), 400, /already exists/);
    expectError(await call('DELETE', '/databases/nope_nope'), 404);
    expectError(await call('PUT', '/cron', { jobs: [{ schedule: '61 * * * *', command: 'x' }] }), 400);
    expectError(await call('PUT', '/files', { path: '/nope/post.md', content: 'x' }), 400, /does not exist/);
    expectError(await call('DELETE', '/protected-dirs?path=/public_html/none'), 404);
    expectError(await call('DELETE', '/backups/hbk_nope'), 404);
    expectError(await call('POST', '/git/pull'), 409);
    expectError(await call('POST', '/ssh-terminal/launch'), 409);
    // Another account's key changes nothing here.
    const other = await app.customer();
    expectError(
      await app.call('DELETE', `/v1/hosting/${id}/databases/${(await call('GET', '/databases')).body.data[0].name}`, {
        key: other.key,
      }),
      404,
    );
    const after = (await rows(c.accountId)).slice(before).map((r) => r.data);
    expect(after).toEqual([{ hostingId: id, part: 'databases', action: 'created' }]);
    expect(await rows(other.accountId)).toEqual([]);
  });
});

describe('a credential without the area read scope', () => {
  it('sees none of the new kinds: not in the subscription nor GET /events', async () => {
    const w = await watched(NEW_KINDS, '/scoped');
    try {
      const minted = await app.admin('POST', `/admin/accounts/${w.c.accountId}/api-keys`, {
        scopes: ['account:read', 'billing:read'],
      });
      expect(minted.status, minted.text).toBe(201);
      const blindKey = minted.body.key as string;
      const blindSub = await subscribeEvents(app.url, blindKey);
      const forbidden = await subscribeEvents(app.url, blindKey, { types: ['hosting.panel.changed'] });
      try {
        const serverId = await runningServer(app, w.c);
        const hostingId = await activeHosting(app, w.c);
        await app.call('POST', `/v1/servers/${serverId}/snapshots`, { key: w.c.key, body: { name: 'nightly' } });
        await app.call('POST', `/v1/hosting/${hostingId}/databases`, { key: w.c.key, body: { suffix: 'blind' } });
        const deposit = await app.admin('POST', `/admin/accounts/${w.c.accountId}/wallet/deposits`, {
          amountUsdCents: 500,
          gateway: 'card',
        });
        expect(deposit.status, deposit.text).toBe(201);
        await w.sub.waitFor(2);
        await blindSub.waitFor(1);
        await new Promise((r) => setTimeout(r, 300));
        expect(w.sub.events.map((e) => e.type)).toEqual(['server.snapshot.created', 'hosting.panel.changed']);
        expect(blindSub.events.map((e) => e.type)).toEqual(['wallet.deposit.received']);
        expect(forbidden.events).toEqual([]);
        expect(JSON.stringify(forbidden.errors)).toMatch(/hosting:read/);
        const blindRest = await app.call('GET', '/v1/events', { key: blindKey });
        expect(blindRest.status, blindRest.text).toBe(200);
        const blindTypes = blindRest.body.data.map((e: { type: string }) => e.type);
        expect(blindTypes.filter((t: string) => !/^(invoice|wallet)\./.test(t))).toEqual([]);
        const all = (await app.call('GET', '/v1/events', { key: w.c.key })).body.data.map(
          (e: { type: string }) => e.type,
        );
        expect(all).toEqual(expect.arrayContaining(['server.snapshot.created', 'hosting.panel.changed']));
      } finally {
        await blindSub.dispose();
        await forbidden.dispose();
      }
    } finally {
      await w.sub.dispose();
    }
  });
});
