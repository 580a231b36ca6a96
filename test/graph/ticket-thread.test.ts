import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestApp, type Customer, type TestApp } from '../helpers/app.ts';
import { gql } from '../helpers/graphql.ts';

/**
 * A ticket's thread is read once: the ticket read by id carries it from the same statement
 * (GET /v1/tickets/:id, the ticket writes), and the threads of a page of tickets are one batched
 * statement, however many tickets the page holds. Counted at the driver (startTestApp's onQuery).
 */
let app: TestApp;
let c: Customer;
const sql: string[] = [];
const readsOfMessages = () => sql.filter((s) => /FROM\s+"(public"\.")?TicketMessage"/i.test(s)).length;

beforeAll(async () => {
  app = await startTestApp({}, { onQuery: (s) => sql.push(s) });
  c = await app.customer({ scopes: ['tickets:read', 'tickets:write'] });
}, 60_000);
afterAll(() => app?.stop());

const open = async (n: number) => {
  const res = await app.call('POST', '/v1/tickets', { key: c.key, body: { subject: `Ticket ${n}`, message: 'Hello' } });
  expect(res.status).toBe(200);
  return res.body.id as string;
};

it('reads a ticket by id with its thread in one statement', async () => {
  const id = await open(1);
  sql.length = 0;
  const res = await app.call('GET', `/v1/tickets/${id}`, { key: c.key });
  expect(res.status).toBe(200);
  expect(res.body.messages).toHaveLength(1);
  expect(readsOfMessages()).toBe(1);
  expect(sql.some((s) => /json_agg/.test(s))).toBe(true);
});

it('reads the threads of a page of tickets in one statement, for 2 or 6 tickets', async () => {
  const query = '{ tickets(first: 50) { nodes { id messages { body } } } }';
  for (const count of [2, 6]) {
    while (
      (await gql(app, '{ tickets(first: 50) { nodes { id } } }', { key: c.key })).body.data.tickets.nodes.length < count
    )
      await open(count);
    sql.length = 0;
    const res = await gql(app, query, { key: c.key });
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.tickets.nodes).toHaveLength(count);
    expect(readsOfMessages()).toBe(1);
  }
});
