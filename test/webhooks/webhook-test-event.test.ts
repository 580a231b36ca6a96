import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type Customer, type Json, type TestApp } from '../helpers/app.ts';
import { gql } from '../helpers/graphql.ts';
import { callTool, mcpClient } from '../helpers/mcp.ts';
import { advance, runDueWork, startReceiver, type Receiver } from '../helpers/webhooks.ts';

/** POST /webhooks/:id/test (mutation webhookTest, tool webhook_test): a signed test event to one subscription. */
let app: TestApp;
let receiver: Receiver;
const stripe = new Stripe('sk_test_unused');

beforeAll(async () => {
  app = await startTestApp({ webhookAllowPrivate: true });
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver?.close();
  await app?.stop();
});

const at = (path: string) => receiver.received.filter((r) => r.path === path);

async function subscribe(c: Customer, events: string[], path: string): Promise<{ id: string; secret: string }> {
  const r = await app.call('POST', '/v1/webhooks', { key: c.key, body: { url: `${receiver.url}${path}`, events } });
  expect(r.status, r.text).toBe(200);
  return r.body;
}

/** The one request `path` received, its signature checked by Stripe's own verifier with `secret`. */
function verifiedTestEvent(path: string, secret: string, webhookId: string) {
  const got = at(path);
  expect(got).toHaveLength(1);
  const [request] = got;
  const event = stripe.webhooks.constructEvent(request.body, String(request.headers['x-service-signature']), secret);
  expect(event).toMatchObject({ type: 'webhook.test', data: { webhookId }, apiVersion: '1.16' });
  expect(request.headers['x-service-event-type']).toBe('webhook.test');
  expect(request.headers['x-service-event-id']).toBe(event.id);
  expect(() =>
    stripe.webhooks.constructEvent(request.body, String(request.headers['x-service-signature']), 'whsec_wrong'),
  ).toThrow(/signature/i);
  return { event, request };
}

describe('a test event to one webhook', () => {
  it('over REST: signed, only to that subscription whatever its kinds, in its log, never an account event', async () => {
    const c = await app.customer();
    // Subscribed to one kind only: the test event is sent anyway.
    const hook = await subscribe(c, ['invoice.paid'], '/rest-one');
    const other = await subscribe(c, ['*'], '/rest-all');
    const sent = await app.call('POST', `/v1/webhooks/${hook.id}/test`, { key: c.key });
    expect(sent.status, sent.text).toBe(200);
    expect(sent.body).toMatchObject({ webhookId: hook.id, eventType: 'webhook.test', status: 'pending' });
    expect(sent.body.id).toMatch(/^whd_/);
    expect(sent.body.eventId).toMatch(/^evt_/);

    await runDueWork(app);
    const { event, request } = verifiedTestEvent('/rest-one', hook.secret, hook.id);
    expect(event.id).toBe(sent.body.eventId);
    expect(request.headers['x-service-delivery-id']).toBe(sent.body.id);
    expect(at('/rest-all')).toEqual([]);

    const log = (await app.call('GET', `/v1/webhooks/${hook.id}/deliveries`, { key: c.key })).body.data;
    expect(log).toHaveLength(1);
    expect(log[0]).toMatchObject({ id: sent.body.id, eventType: 'webhook.test', status: 'succeeded', attemptCount: 1 });
    expect((await app.call('GET', `/v1/webhooks/${other.id}/deliveries`, { key: c.key })).body.data).toEqual([]);

    // Not in the account's history, not readable as a node.
    const history = await app.call('GET', '/v1/events', { key: c.key });
    expect(history.status, history.text).toBe(200);
    expect(history.body.data.map((e: Json) => e.id)).not.toContain(event.id);
    const node = await gql(app, 'query($id: ID!) { node(id: $id) { id } }', {
      key: c.key,
      variables: { id: event.id },
    });
    expect(node.body.data?.node ?? null).toBeNull();
    // The relay never took it (so no live stream or fan-out could): it has no place in the relay's order.
    const row = await app.running.app.prisma.event.findUnique({ where: { id: event.id }, select: { relaySeq: true } });
    expect(row).toEqual({ relaySeq: null });
  });

  it('is retried after a failure and can be redelivered, with the same delivery id', async () => {
    const c = await app.customer();
    const hook = await subscribe(c, ['server.created'], '/retry');
    let answer = 500;
    receiver.respond = (r) => (r.path === '/retry' ? answer : 200);
    try {
      const sent = (await app.call('POST', `/v1/webhooks/${hook.id}/test`, { key: c.key })).body;
      await runDueWork(app);
      let d = (await app.call('GET', `/v1/webhooks/${hook.id}/deliveries`, { key: c.key })).body.data[0];
      expect(d).toMatchObject({ id: sent.id, status: 'pending', attemptCount: 1, lastStatusCode: 500 });

      answer = 200;
      await advance(app, 61);
      await runDueWork(app);
      d = (await app.call('GET', `/v1/webhooks/${hook.id}/deliveries`, { key: c.key })).body.data[0];
      expect(d).toMatchObject({ id: sent.id, status: 'succeeded', attemptCount: 2, lastStatusCode: 200 });

      const again = await app.call('POST', `/v1/webhooks/${hook.id}/deliveries/${sent.id}/redeliver`, { key: c.key });
      expect(again.status, again.text).toBe(200);
      await runDueWork(app);
      const got = at('/retry');
      expect(got).toHaveLength(3);
      expect(new Set(got.map((r) => r.headers['x-service-delivery-id']))).toEqual(new Set([sent.id]));
      expect(got.map((r) => r.headers['x-service-delivery-attempt'])).toEqual(['1', '2', '3']);
      // The body is the same on every attempt; each signature verifies.
      for (const r of got) {
        expect(r.body).toBe(got[0].body);
        stripe.webhooks.constructEvent(r.body, String(r.headers['x-service-signature']), hook.secret);
      }
    } finally {
      receiver.respond = () => 200;
    }
  });

  it('a paused webhook answers 409 and sends nothing; resumed, it sends', async () => {
    const c = await app.customer();
    const hook = await subscribe(c, ['*'], '/paused');
    await app.call('PATCH', `/v1/webhooks/${hook.id}`, { key: c.key, body: { isActive: false } });
    const refused = await app.call('POST', `/v1/webhooks/${hook.id}/test`, { key: c.key });
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ code: 'CONFLICT', message: expect.stringMatching(/paused/) });
    await app.call('PATCH', `/v1/webhooks/${hook.id}`, { key: c.key, body: { isActive: true } });
    await runDueWork(app);
    expect(at('/paused')).toEqual([]);
    expect((await app.call('GET', `/v1/webhooks/${hook.id}/deliveries`, { key: c.key })).body.data).toEqual([]);
    expect((await app.call('POST', `/v1/webhooks/${hook.id}/test`, { key: c.key })).status).toBe(200);
    await runDueWork(app);
    verifiedTestEvent('/paused', hook.secret, hook.id);
  });

  it('needs webhooks:write; another account’s webhook is 404, as a missing one', async () => {
    const c = await app.customer();
    const hook = await subscribe(c, ['*'], '/scoped');
    const stranger = await app.customer();
    expect((await app.call('POST', `/v1/webhooks/${hook.id}/test`, { key: stranger.key })).status).toBe(404);
    expect((await app.call('POST', '/v1/webhooks/wh_00000000000000000000000000/test', { key: c.key })).status).toBe(
      404,
    );
    const reader = await app.admin('POST', `/admin/accounts/${c.accountId}/api-keys`, { scopes: ['webhooks:read'] });
    expect((await app.call('POST', `/v1/webhooks/${hook.id}/test`, { key: reader.body.key })).status).toBe(403);
    await runDueWork(app);
    expect(at('/scoped')).toEqual([]);
  });

  it('over GraphQL: mutation webhookTest answers the delivery; the receiver verifies it', async () => {
    const c = await app.customer();
    const hook = await subscribe(c, ['ticket.replied'], '/graphql');
    const r = await gql(
      app,
      'mutation($id: ID!) { webhookTest(id: $id) { id eventId eventType status webhook { id } } }',
      {
        key: c.key,
        variables: { id: hook.id },
      },
    );
    expect(r.body.errors, r.text).toBeUndefined();
    expect(r.body.data.webhookTest).toMatchObject({
      eventType: 'webhook.test',
      status: 'pending',
      webhook: { id: hook.id },
    });
    await runDueWork(app);
    const { event } = verifiedTestEvent('/graphql', hook.secret, hook.id);
    expect(event.id).toBe(r.body.data.webhookTest.eventId);
  });

  it('over MCP: webhook_test is outside the default tools, in the webhooks-extra toolset', async () => {
    const c = await app.customer();
    const hook = await subscribe(c, ['domain.registered'], '/mcp');
    const plain = await mcpClient(app.url, c.key);
    const extra = await mcpClient(app.url, c.key, { 'X-MCP-Toolsets': 'webhooks,webhooks-extra' });
    try {
      const defaults = (await plain.listTools()).tools.map((t) => t.name);
      expect(defaults).toContain('webhook_update');
      expect(defaults).not.toContain('webhook_test');
      const listed = (await extra.listTools()).tools.find((t) => t.name === 'webhook_test');
      expect(listed?.annotations?.readOnlyHint ?? false).toBe(false);
      expect(listed?.annotations?.destructiveHint).toBe(false);
      const result = await callTool(extra, 'webhook_test', { id: hook.id });
      expect(result.isError, JSON.stringify(result.structuredContent)).toBeFalsy();
      expect(result.structuredContent).toMatchObject({
        webhookId: hook.id,
        eventType: 'webhook.test',
        status: 'pending',
      });
      await runDueWork(app);
      verifiedTestEvent('/mcp', hook.secret, hook.id);
    } finally {
      await plain.close();
      await extra.close();
    }
  });

  it('deleting the webhook deletes its delivery log and test events', async () => {
    const c = await app.customer();
    const hook = await subscribe(c, ['*'], '/deleted');
    const sent = (await app.call('POST', `/v1/webhooks/${hook.id}/test`, { key: c.key })).body;
    await runDueWork(app);
    expect((await app.call('DELETE', `/v1/webhooks/${hook.id}`, { key: c.key })).status).toBe(200);
    const left = await app.running.app.prisma.event.count({ where: { id: sent.eventId } });
    expect(left).toBe(0);
  });
});
