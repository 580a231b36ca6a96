import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type Customer, type TestApp } from '../helpers/app.ts';
import { gql } from '../helpers/graphql.ts';
import { runningServer } from '../helpers/servers.ts';

/** GET /events (API 1.16): the account's event history, newest first, each kind behind its read scope. */
let app: TestApp;
let c: Customer;
let serverA: string;
let serverB: string;
beforeAll(async () => {
  app = await startTestApp();
  c = await app.customer({ walletBalanceUsdCents: 100_000 });
  serverA = await runningServer(app, c, { label: 'a' });
  serverB = await runningServer(app, c, { label: 'b' });
  for (const action of ['stop', 'start'])
    await app.call('POST', `/v1/servers/${serverA}/power/${action}`, { key: c.key });
  await app.admin('POST', `/admin/accounts/${c.accountId}/wallet/deposits`, { amountUsdCents: 500, gateway: 'card' });
});
afterAll(() => app?.stop());

const history = (key: string, query = '') => app.call('GET', `/v1/events${query}`, { key });

describe('GET /events', () => {
  it('lists every event newest first in the webhook envelope, and pages by cursor', async () => {
    const all = await history(c.key);
    expect(all.status, all.text).toBe(200);
    const types = all.body.data.map((e: { type: string }) => e.type);
    expect(types.slice(0, 3)).toEqual(['wallet.deposit.received', 'server.power.changed', 'server.power.changed']);
    expect(types.filter((t: string) => t === 'server.created')).toHaveLength(2);
    expect(all.body.data[0]).toEqual({
      id: expect.stringMatching(/^evt_/),
      type: 'wallet.deposit.received',
      created: expect.any(String),
      account: c.accountId,
      apiVersion: '1.16',
      data: { amountUsdCents: 500, gateway: 'card', transactionId: expect.stringMatching(/^txn_/) },
    });
    const first = await history(c.key, '?limit=2');
    expect(first.body).toMatchObject({ hasMore: true, nextCursor: all.body.data[1].id });
    const next = await history(c.key, `?limit=2&cursor=${first.body.nextCursor}`);
    expect(next.body.data.map((e: { id: string }) => e.id)).toEqual(
      all.body.data.slice(2, 4).map((e: { id: string }) => e.id),
    );
  });

  it('filters by kind and by the resource an event names', async () => {
    const power = await history(c.key, '?type=server.power.changed');
    expect(power.body.data.map((e: { data: { action: string } }) => e.data.action)).toEqual(['start', 'stop']);
    const ofB = await history(c.key, `?resource=${serverB}`);
    expect(ofB.body.data.map((e: { type: string }) => e.type)).toEqual(['server.created']);
    expect(ofB.body.data[0].data.serverId).toBe(serverB);
    const ofA = await history(c.key, `?resource=${serverA}&type=server.power.changed`);
    expect(ofA.body.data).toHaveLength(2);
  });

  it("shows only kinds the credential can read; asking for another is a 403 naming its scope; another account's events never", async () => {
    const serversOnly = await app.customer({ scopes: ['account:read', 'servers:read'] });
    expect((await history(serversOnly.key)).body.data).toEqual([]);
    const limited = await app.customer({ scopes: ['account:read'] });
    const refused = await history(limited.key, '?type=wallet.deposit.received');
    expect(refused.body).toMatchObject({ statusCode: 403, message: 'This credential lacks the scope "billing:read".' });
    const noAccount = await app.customer({ scopes: ['servers:read'] });
    expect((await history(noAccount.key)).status).toBe(403);
    const stranger = await app.customer();
    expect((await history(stranger.key, `?resource=${serverA}`)).body.data).toEqual([]);
  });

  it('refuses an unknown kind or a resource that is not an id, naming each; GraphQL reads the same history', async () => {
    expect((await history(c.key, '?type=server.exploded')).body).toMatchObject({ statusCode: 400, param: 'type' });
    expect((await history(c.key, '?resource=drop%20table')).body).toMatchObject({ statusCode: 400, param: 'resource' });
    const res = await gql(app, '{ eventHistory(first: 3) { nodes { id type } pageInfo { hasNextPage } } }', {
      key: c.key,
    });
    const rest = await history(c.key, '?limit=3');
    expect(res.body.data.eventHistory.nodes.map((e: { id: string }) => e.id)).toEqual(
      rest.body.data.map((e: { id: string }) => e.id),
    );
  });
});
