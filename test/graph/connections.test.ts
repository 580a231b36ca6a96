import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type Customer, type TestApp } from '../helpers/app.ts';
import { gql } from '../helpers/graphql.ts';
import { runningServer } from '../helpers/servers.ts';

// GraphQL's one list shape: root lists are Relay connections with a complete PageInfo; REST's
// { data, hasMore, nextCursor } is the same connection flattened by the operation's projection.

let app: TestApp;
let c: Customer;
const servers: string[] = [];

beforeAll(async () => {
  app = await startTestApp();
  c = await app.customer({ scopes: ['servers:read', 'servers:write'], walletBalanceUsdCents: 1_000_000 });
  for (const label of ['a', 'b', 'c']) servers.unshift(await runningServer(app, c, { label }));
}, 120_000);
afterAll(() => app?.stop());

const page = (first: number, after?: string) =>
  gql(
    app,
    `query($first: Int, $after: String) { servers(first: $first, after: $after) {
      nodes { id } edges { cursor node { id } } totalCount
      pageInfo { hasNextPage hasPreviousPage startCursor endCursor } } }`,
    { key: c.key, variables: { first, after } },
  );

describe('root lists are connections', () => {
  it('pages newest first with a complete PageInfo, and REST answers the same pages as its envelope', async () => {
    const one = await page(2);
    expect(one.body.errors).toBeUndefined();
    const first = one.body.data.servers;
    expect(first.nodes.map((n: { id: string }) => n.id)).toEqual(servers.slice(0, 2));
    expect(first.edges.map((e: { cursor: string }) => e.cursor)).toEqual(servers.slice(0, 2));
    expect(first.pageInfo).toEqual({
      hasNextPage: true,
      hasPreviousPage: false,
      startCursor: servers[0],
      endCursor: servers[1],
    });
    const two = (await page(2, first.pageInfo.endCursor)).body.data.servers;
    expect(two.nodes.map((n: { id: string }) => n.id)).toEqual([servers[2]]);
    expect(two.pageInfo).toEqual({
      hasNextPage: false,
      hasPreviousPage: true,
      startCursor: servers[2],
      endCursor: servers[2],
    });

    const rest1 = await app.call('GET', '/v1/servers?limit=2', { key: c.key });
    expect(Object.keys(rest1.body)).toEqual(['data', 'hasMore', 'nextCursor']);
    expect(rest1.body.data.map((s: { id: string }) => s.id)).toEqual(servers.slice(0, 2));
    expect(rest1.body).toMatchObject({ hasMore: true, nextCursor: first.pageInfo.endCursor });
    const rest2 = await app.call('GET', `/v1/servers?limit=2&cursor=${rest1.body.nextCursor}`, { key: c.key });
    // The last page: the connection's endCursor is the last item, REST's nextCursor null.
    expect(rest2.body).toMatchObject({ hasMore: false, nextCursor: null });
  });

  it("the graph's own connections say the same of where a page starts", async () => {
    const res = await gql(
      app,
      `{ account { first: servers(first: 1) { pageInfo { hasPreviousPage startCursor } }
                   next: servers(first: 1, after: "${servers[0]}") { pageInfo { hasPreviousPage startCursor } } } }`,
      { key: c.key },
    );
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.account).toEqual({
      first: { pageInfo: { hasPreviousPage: false, startCursor: servers[0] } },
      next: { pageInfo: { hasPreviousPage: true, startCursor: servers[1] } },
    });
  });

  it('a list REST answers whole is a connection, whole without first or last, as REST answers it', async () => {
    const res = await gql(
      app,
      `{ serverIps(id: "${servers[0]}") { nodes { ip primary } totalCount pageInfo { hasNextPage hasPreviousPage } } }`,
      { key: c.key },
    );
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.serverIps.pageInfo).toEqual({ hasNextPage: false, hasPreviousPage: false });
    expect(res.body.data.serverIps.totalCount).toBe(res.body.data.serverIps.nodes.length);
    const rest = await app.call('GET', `/v1/servers/${servers[0]}/ips`, { key: c.key });
    expect(rest.body).toEqual({ data: expect.any(Array), hasMore: false, nextCursor: null });
    expect(rest.body.data.map((a: { ip: string }) => a.ip)).toEqual(
      res.body.data.serverIps.nodes.map((a: { ip: string }) => a.ip),
    );
    // Its paging is GraphQL's own: REST still refuses limit and cursor as unknown parameters.
    const limited = await app.call('GET', `/v1/servers/${servers[0]}/ips?limit=1`, { key: c.key });
    expect(limited.status).toBe(400);
  });

  it('GraphQL pages such a list with first/after and back with last/before (plugin-relay offset cursors)', async () => {
    const addons = (args: string) =>
      gql(
        app,
        `{ serverAddons(id: "${servers[0]}"${args}) { nodes { id } edges { cursor }
           pageInfo { hasNextPage hasPreviousPage startCursor endCursor } } }`,
        { key: c.key },
      );
    const whole = (await addons('')).body.data.serverAddons;
    const codes = whole.nodes.map((n: { id: string }) => n.id);
    expect(codes.length).toBeGreaterThan(2);
    const one = (await addons(', first: 2')).body.data.serverAddons;
    expect(one.nodes.map((n: { id: string }) => n.id)).toEqual(codes.slice(0, 2));
    expect(one.pageInfo).toMatchObject({ hasNextPage: true, hasPreviousPage: false });
    expect(one.pageInfo.endCursor).toBe(one.edges[1].cursor);
    const two = (await addons(`, first: 2, after: "${one.pageInfo.endCursor}"`)).body.data.serverAddons;
    expect(two.nodes.map((n: { id: string }) => n.id)).toEqual(codes.slice(2, 4));
    expect(two.pageInfo.hasPreviousPage).toBe(true);
    const back = (await addons(`, last: 2, before: "${two.pageInfo.startCursor}"`)).body.data.serverAddons;
    expect(back.nodes.map((n: { id: string }) => n.id)).toEqual(codes.slice(0, 2));
    expect(back.pageInfo).toMatchObject({ hasPreviousPage: false, hasNextPage: true });

    for (const [arg, cursor] of [
      ['after', 'zzz'],
      ['after', servers[0]],
      ['before', Buffer.from('OffsetConnection:1x').toString('base64')],
    ]) {
      const refused = await addons(`, ${arg}: "${cursor}"`);
      expect(refused.body.errors[0], `${arg}: ${cursor}`).toMatchObject({
        message: `${arg} must be the ${arg === 'after' ? 'endCursor' : 'startCursor'} of a previous page.`,
        extensions: { code: 'BAD_REQUEST', field: arg },
      });
    }
  });

  it('limit and first are the same bound, each refused in its own name', async () => {
    const rest = await app.call('GET', '/v1/servers?limit=1001', { key: c.key });
    expect(rest.body).toMatchObject({
      statusCode: 400,
      param: 'limit',
      message: 'limit must be an integer from 1 to 1000.',
    });
    const graph = await page(1001);
    expect(graph.body.errors[0]).toMatchObject({
      message: 'first must be an integer from 1 to 1000.',
      extensions: { code: 'BAD_REQUEST', field: 'first' },
    });
  });

  it("an edge's first has the same bound, refused by the same declared rule before the edge reads", async () => {
    for (const first of [0, 1001]) {
      const res = await gql(app, `query($first: Int) { account { servers(first: $first) { totalCount } } }`, {
        key: c.key,
        variables: { first },
      });
      expect(res.status).toBe(400);
      expect(res.body.errors[0]).toMatchObject({
        message: 'first must be an integer from 1 to 1000.',
        extensions: { code: 'BAD_REQUEST', field: 'first' },
      });
    }
  });
});

describe('global ids are the prefixed ids (plugin-relay encodes and decodes them)', () => {
  const nodes = (ids: string[]) =>
    gql(app, `query($ids: [ID!]!) { nodes(ids: $ids) { id } }`, { key: c.key, variables: { ids } });

  it('nodes(ids:) takes at most 100 ids; an id of no known kind (or no prefix) reads as null', async () => {
    const ids = Array.from({ length: 101 }, () => servers[0]);
    const tooMany = await nodes(ids);
    expect(tooMany.body.errors?.[0]).toMatchObject({
      message: 'ids may name at most 100 resources.',
      extensions: { field: 'ids' },
    });
    expect(tooMany.body.data).toBeNull();
    const hundred = await nodes(ids.slice(1));
    expect(hundred.body.errors).toBeUndefined();
    expect(hundred.body.data.nodes).toEqual(ids.slice(1).map((id) => ({ id })));
    const unknown = await gql(app, `{ a: node(id: "zzz_123") { id } b: node(id: "noprefix") { id } }`, { key: c.key });
    expect(unknown.body).toEqual({ data: { a: null, b: null } });
  });

  it('a node reads as its own reads show it: a terminated server, its detached add-on and freed address are missing', async () => {
    const serverId = await runningServer(app, c);
    const db = app.running.app.prisma;
    const ip = await db.serverIp.findFirstOrThrow({ where: { serverId } });
    const addon = await db.serverAddon.create({
      data: {
        id: 'sad_nodevisibility0000000000000',
        accountId: c.accountId,
        serverId,
        productId: 'addon-ipv4-1',
        type: 'extra_ip',
        activeType: 'extra_ip',
        monthlyUsdCents: 100,
        chargedUsdCents: 0,
      },
    });
    const ids = [serverId, ip.id, addon.id];
    expect((await nodes(ids)).body.data.nodes).toEqual(ids.map((id) => ({ id })));
    await db.serverAddon.update({ where: { id: addon.id }, data: { endedAt: new Date() } });
    await db.serverIp.update({ where: { id: ip.id }, data: { serverId: null } });
    await db.server.update({ where: { id: serverId }, data: { status: 'terminated' } });
    const after = await nodes(ids);
    expect(after.body).toEqual({ data: { nodes: [null, null, null] } });
  });
});
