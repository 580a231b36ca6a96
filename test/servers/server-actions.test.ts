import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serverActionRule } from '../../src/modules/servers/actions.ts';
import { startTestApp, type Customer, type TestApp } from '../helpers/app.ts';
import { gql } from '../helpers/graphql.ts';
import { runningServer } from '../helpers/servers.ts';

/** Server.actions: what a console may offer besides power, by the rules the mutations apply. */
let app: TestApp;
let c: Customer;
beforeAll(async () => {
  app = await startTestApp();
  c = await app.customer({ walletBalanceUsdCents: 100_000 });
});
afterAll(() => app?.stop());

type State = { action: string; available: boolean; reason: string | null };
const actionsOf = async (id: string): Promise<Record<string, State>> => {
  const res = await gql(app, 'query($id: ID!) { server(id: $id) { actions { action available reason } } }', {
    key: c.key,
    variables: { id },
  });
  expect(res.body.errors).toBeUndefined();
  return Object.fromEntries(res.body.data.server.actions.map((a: State) => [a.action, a]));
};

const snapshot = (id: string, name: string) =>
  app.call('POST', `/v1/servers/${id}/snapshots`, { key: c.key, body: { name } });

describe('Server.actions', () => {
  it('a running server takes every action', async () => {
    const id = await runningServer(app, c);
    const states = await actionsOf(id);
    expect(Object.keys(states)).toEqual([
      'snapshot',
      'revert',
      'snapshotDelete',
      'reinstall',
      'changePlan',
      'addonAttach',
      'addonDetach',
      'ptr',
      'terminate',
    ]);
    for (const s of Object.values(states)) expect(s).toMatchObject({ available: true, reason: null });
  });

  it('a provisioning server: each state-bound action refused with the 409 its mutation answers; terminate still offered', async () => {
    const order = await app.admin('POST', `/admin/accounts/${c.accountId}/servers`, {
      productId: 'std-1c-2g-50',
      label: 'new-1',
      osTemplate: 'debian-12',
    });
    const id = order.body.id;
    const states = await actionsOf(id);
    const answers: Record<string, Awaited<ReturnType<typeof snapshot>>> = {
      snapshot: await snapshot(id, 'before'),
      reinstall: await app.call('POST', `/v1/servers/${id}/reinstall`, {
        key: c.key,
        body: { osTemplate: 'debian-12' },
      }),
      changePlan: await app.call('POST', `/v1/servers/${id}/change-plan`, {
        key: c.key,
        body: { productId: 'std-2c-4g-50' },
      }),
      addonAttach: await app.call('POST', `/v1/servers/${id}/addons`, {
        key: c.key,
        body: { addonId: 'addon-ipv4-4' },
      }),
    };
    for (const [action, res] of Object.entries(answers)) {
      expect(res.status, `${action}: ${res.text}`).toBe(409);
      expect(states[action]).toEqual({ action, available: false, reason: res.body.message });
    }
    expect(states.revert).toMatchObject({ available: false, reason: expect.stringMatching(/provisioning/) });
    for (const action of ['snapshotDelete', 'addonDetach', 'ptr', 'terminate'])
      expect(states[action]).toEqual({ action, available: true, reason: null });
  });

  it('a server with 10 snapshots: snapshot refused with the 400 serverSnapshotCreate answers, the rest offered', async () => {
    const id = await runningServer(app, c);
    for (let i = 0; i < 10; i++) expect((await snapshot(id, `s${i}`)).status).toBe(200);
    const states = await actionsOf(id);
    const eleventh = await snapshot(id, 's10');
    expect(eleventh.status).toBe(400);
    expect(states.snapshot).toEqual({ action: 'snapshot', available: false, reason: eleventh.body.message });
    expect(states.revert.available).toBe(true);
  });
});

describe('Server.actions and the credential', () => {
  it('a key without servers:destroy: revert, reinstall and terminate refused with the 403 each mutation answers', async () => {
    const id = await runningServer(app, c);
    const minted = await app.admin('POST', `/admin/accounts/${c.accountId}/api-keys`, {
      scopes: ['servers:read', 'servers:write'],
    });
    const writer = minted.body.key as string;
    const res = await gql(app, 'query($id: ID!) { server(id: $id) { actions { action available reason } } }', {
      key: writer,
      variables: { id },
    });
    expect(res.body.errors).toBeUndefined();
    const states: Record<string, State> = Object.fromEntries(
      res.body.data.server.actions.map((a: State) => [a.action, a]),
    );
    const terminate = await app.call('DELETE', `/v1/servers/${id}`, { key: writer });
    expect(terminate.status, terminate.text).toBe(403);
    for (const action of ['revert', 'reinstall', 'terminate'])
      expect(states[action]).toEqual({ action, available: false, reason: terminate.body.message });
    expect(terminate.body.message).toMatch(/servers:destroy/);
    for (const action of ['snapshot', 'snapshotDelete', 'changePlan', 'addonAttach', 'addonDetach', 'ptr'])
      expect(states[action].available).toBe(true);
  });

  it('a read-only key: no action and no power action, each with the 403 its mutation answers', async () => {
    const id = await runningServer(app, c);
    const minted = await app.admin('POST', `/admin/accounts/${c.accountId}/api-keys`, { scopes: ['servers:read'] });
    const reader = minted.body.key as string;
    const res = await gql(
      app,
      'query($id: ID!) { server(id: $id) { actions { action available reason } powerActions { action available reason } } }',
      { key: reader, variables: { id } },
    );
    expect(res.body.errors).toBeUndefined();
    const { actions, powerActions } = res.body.data.server as { actions: State[]; powerActions: State[] };
    // 198.18.0.1 is a path segment the scope check refuses before anything reads it.
    const write = await app.call('PUT', `/v1/servers/${id}/ips/198.18.0.1/ptr`, {
      key: reader,
      body: { hostname: 'mail.example.com' },
    });
    const destroy = await app.call('DELETE', `/v1/servers/${id}`, { key: reader });
    const stop = await app.call('POST', `/v1/servers/${id}/power/stop`, { key: reader });
    expect([write.status, destroy.status, stop.status]).toEqual([403, 403, 403]);
    const destroying = ['revert', 'reinstall', 'terminate'];
    for (const a of actions)
      expect(a).toEqual({
        action: a.action,
        available: false,
        reason: destroying.includes(a.action) ? destroy.body.message : write.body.message,
      });
    for (const a of powerActions) expect(a).toEqual({ action: a.action, available: false, reason: stop.body.message });
  });
});

describe('serverActionRule', () => {
  it('refuses plan changes and add-ons to a server inside a pool, whatever its state', () => {
    const inPool = { status: 'running', poolId: 'pool_1' };
    expect(serverActionRule('changePlan', inPool, { snapshotCount: 0 })?.status).toBe(409);
    expect(serverActionRule('addonAttach', inPool, { snapshotCount: 0 })?.status).toBe(400);
    expect(serverActionRule('snapshot', inPool, { snapshotCount: 0 })).toBeNull();
    expect(serverActionRule('terminate', { status: 'suspended', poolId: null }, { snapshotCount: 0 })).toBeNull();
  });
});
