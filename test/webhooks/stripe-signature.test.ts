import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { provisionedServers, runDueWork, startReceiver, type Receiver } from '../helpers/webhooks.ts';

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

describe("Stripe's own verifier accepts our signatures unchanged", () => {
  it('stripe.webhooks.constructEvent verifies with the current secret and refuses the old one after rotate', async () => {
    const stripe = new Stripe('sk_test_unused');
    const c = await app.customer();
    const hook = (
      await app.call('POST', '/v1/webhooks', { key: c.key, body: { url: `${receiver.url}/stripe`, events: ['*'] } })
    ).body;
    const [serverId] = await provisionedServers(app, c.accountId);
    await runDueWork(app);
    const first = receiver.received[0];
    const event = stripe.webhooks.constructEvent(first.body, String(first.headers['x-service-signature']), hook.secret);
    expect(event).toMatchObject({
      id: first.headers['x-service-event-id'],
      type: 'server.created',
      data: { serverId },
    });
    expect(() =>
      stripe.webhooks.constructEvent(first.body, String(first.headers['x-service-signature']), 'whsec_wrong'),
    ).toThrow(/signature/i);
    expect(() =>
      stripe.webhooks.constructEvent(
        first.body.replace('running', 'stopped'),
        String(first.headers['x-service-signature']),
        hook.secret,
      ),
    ).toThrow(/signature/i);

    const rotated = (await app.call('POST', `/v1/webhooks/${hook.id}/rotate-secret`, { key: c.key })).body;
    await app.call('POST', `/v1/servers/${serverId}/power/stop`, { key: c.key });
    await runDueWork(app);
    const second = receiver.received[1];
    const header = String(second.headers['x-service-signature']);
    expect(stripe.webhooks.constructEvent(second.body, header, rotated.secret)).toMatchObject({
      type: 'server.power.changed',
      data: { serverId, action: 'stop' },
    });
    expect(() => stripe.webhooks.constructEvent(second.body, header, hook.secret)).toThrow(
      /No signatures found matching the expected signature/,
    );
  });
});
