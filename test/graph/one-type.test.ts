import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type Customer, type TestApp } from '../helpers/app.ts';
import { gql } from '../helpers/graphql.ts';

// One GraphQL type per entity: a ticket is `Ticket` with its thread wherever it is read, a pool
// is `Pool` with its usage, bounds and server list. REST keeps two forms of each (list items,
// and TicketDetail / PoolDetail) through each operation's declared projection.

let app: TestApp;
let c: Customer;
let ticketId: string;
let poolId: string;

beforeAll(async () => {
  app = await startTestApp();
  c = await app.customer({
    scopes: ['servers:read', 'servers:write', 'tickets:read', 'tickets:write'],
    walletBalanceUsdCents: 1_000_000,
  });
  const ticket = await app.call('POST', '/v1/tickets', { key: c.key, body: { subject: 'Fans', message: 'Loud.' } });
  expect(ticket.status, ticket.text).toBe(200);
  ticketId = ticket.body.id;
  expect(
    (await app.call('POST', `/v1/tickets/${ticketId}/reply`, { key: c.key, body: { body: 'Still.' } })).status,
  ).toBe(200);
  const pool = await app.call('POST', '/v1/pools', {
    key: c.key,
    body: { productId: 'pool-fra1', label: 'cluster', vcpu: 4, ram2gb: 4, disk100: 1, ip16: 1 },
  });
  expect(pool.status, pool.text).toBe(200);
  poolId = pool.body.id;
  const server = await app.call('POST', `/v1/pools/${poolId}/servers`, {
    key: c.key,
    body: { productId: 'std-1c-2g-50', label: 'a', osTemplate: 'debian-12', ipCount: 1 },
  });
  expect(server.status, server.text).toBe(200);
}, 120_000);
afterAll(() => app?.stop());

describe('one type per entity', () => {
  it('a ticket reads the same, thread included, by id, in a list and as a node; REST keeps its two forms', async () => {
    const fields = 'id subject status messages { author body }';
    const res = await gql(
      app,
      `{ ticket(id: "${ticketId}") { ${fields} }
         account { tickets(first: 5) { nodes { ${fields} } } }
         node(id: "${ticketId}") { __typename ... on Ticket { ${fields} } } }`,
      { key: c.key },
    );
    expect(res.body.errors).toBeUndefined();
    const { ticket, account, node } = res.body.data;
    expect(ticket.messages.map((m: { body: string }) => m.body)).toEqual(['Loud.', 'Still.']);
    expect(account.tickets.nodes).toEqual([ticket]);
    expect(node).toEqual({ __typename: 'Ticket', ...ticket });
    const list = await app.call('GET', '/v1/tickets', { key: c.key });
    expect(list.body.data[0].messages).toBeUndefined();
    const detail = await app.call('GET', `/v1/tickets/${ticketId}`, { key: c.key });
    expect(detail.body.messages).toHaveLength(2);
  });

  it('a pool reads its usage, bounds and server list from a list as by id; REST names the list servers', async () => {
    const fields = 'id usage { servers vcpu } bounds { vcpu { min max } } members { id label ips }';
    const res = await gql(
      app,
      `{ pool(id: "${poolId}") { ${fields} } account { pools(first: 5) { nodes { ${fields} } } } }`,
      { key: c.key },
    );
    expect(res.body.errors).toBeUndefined();
    const { pool, account } = res.body.data;
    expect(pool.usage.servers).toBe(1);
    expect(pool.members).toHaveLength(1);
    expect(account.pools.nodes).toEqual([pool]);
    const detail = await app.call('GET', `/v1/pools/${poolId}`, { key: c.key });
    expect(detail.body.servers).toEqual(pool.members.map((m: object) => expect.objectContaining(m)));
    expect(detail.body.members).toBeUndefined();
    const list = await app.call('GET', '/v1/pools', { key: c.key });
    expect(Object.keys(list.body.data[0])).not.toContain('usage');
  });
});
