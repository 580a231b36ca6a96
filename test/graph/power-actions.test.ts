import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { powerRule } from '../../src/modules/servers/service.ts';
import { startTestApp, type Customer, type TestApp } from '../helpers/app.ts';
import { gql } from '../helpers/graphql.ts';
import { runningServer } from '../helpers/servers.ts';

/** Server.powerActions: what a console may offer, by the rule serverPower applies. */
let app: TestApp;
let c: Customer;
beforeAll(async () => {
  app = await startTestApp();
  c = await app.customer({ walletBalanceUsdCents: 100_000 });
});
afterAll(() => app?.stop());

type State = { action: string; available: boolean; reason: string | null };
const actionsOf = async (id: string): Promise<Record<string, State>> => {
  const res = await gql(
    app,
    'query($id: ID!) { server(id: $id) { status powerActions { action available reason } } }',
    {
      key: c.key,
      variables: { id },
    },
  );
  expect(res.body.errors).toBeUndefined();
  return Object.fromEntries(res.body.data.server.powerActions.map((a: State) => [a.action, a]));
};

/** What serverPower answers for an action. */
const power = (id: string, action: string) => app.call('POST', `/v1/servers/${id}/power/${action}`, { key: c.key });

describe('Server.powerActions', () => {
  it('a running server: stop and reboot run, start changes nothing; each says what serverPower does', async () => {
    const id = await runningServer(app, c);
    const states = await actionsOf(id);
    expect(states.start).toEqual({ action: 'start', available: false, reason: 'The server is already running.' });
    expect(states.stop).toMatchObject({ available: true, reason: null });
    expect(states.reboot).toMatchObject({ available: true, reason: null });
    // start is the 200 that runs nothing: the server stays running.
    const start = await power(id, 'start');
    expect(start.body.status).toBe('running');
  });

  it('a stopped server: start runs; stop changes nothing; reboot is the 409 serverPower answers, word for word', async () => {
    const id = await runningServer(app, c);
    expect((await power(id, 'stop')).body.status).toBe('stopped');
    const states = await actionsOf(id);
    expect(states.start).toMatchObject({ available: true, reason: null });
    expect(states.stop).toMatchObject({ available: false, reason: 'The server is already stopped.' });
    const reboot = await power(id, 'reboot');
    expect(reboot.status).toBe(409);
    expect(states.reboot).toEqual({ action: 'reboot', available: false, reason: reboot.body.message });
  });

  it('a provisioning server takes no action, each refused with the 409 serverPower answers', async () => {
    const order = await app.admin('POST', `/admin/accounts/${c.accountId}/servers`, {
      productId: 'std-1c-2g-50',
      label: 'new-1',
      osTemplate: 'debian-12',
    });
    const id = order.body.id;
    const states = await actionsOf(id);
    for (const action of ['start', 'stop', 'reboot']) {
      const res = await power(id, action);
      expect(res.status).toBe(409);
      expect(states[action]).toEqual({ action, available: false, reason: res.body.message });
    }
  });
});

describe('powerRule', () => {
  it('refuses the start of a server whose pool is gone, and only the start', () => {
    const start = powerRule('stopped', 'start', false);
    expect(start).not.toBe('unchanged');
    expect(start && typeof start === 'object' ? [start.status, start.message] : start).toEqual([
      409,
      'This server was preserved when its capacity pool was deleted and cannot be started; snapshot or terminate it.',
    ]);
    expect(powerRule('stopped', 'start', true)).toBeNull();
    expect(powerRule('running', 'stop', false)).toBeNull();
  });
});
