import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EVENT_TYPES } from '../../src/events/catalog.ts';
import { startTestApp, type Json, type TestApp } from '../helpers/app.ts';
import { proveDomain } from '../helpers/domains.ts';
import { subscribeEvents, type Subscriber } from '../helpers/graphql-ws.ts';
import { expectError } from '../helpers/servers.ts';
import { parseSignature, runDueWork, startReceiver, type Receiver } from '../helpers/webhooks.ts';

// The kinds of revision 1.16 that make a change made elsewhere (another tab, an API key, MCP)
// show in the console without a reload: mail, domain settings, a ticket's close and the
// customer's reply. Each is recorded once per change, with exactly its declared payload, and
// reaches a signed webhook and a graphql-ws subscriber; a credential without the area's read
// scope sees none of them, and a refused change records nothing.

const NEW_KINDS = [
  'mail.domain.enabled',
  'mail.domain.disabled',
  'mail.mailbox.created',
  'mail.mailbox.deleted',
  'mail.mailbox.password.changed',
  'mail.alias.created',
  'mail.alias.deleted',
  'domain.updated',
  'ticket.customer.replied',
  'ticket.closed',
] as const;

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

let n = 0;
const unique = (base: string) => `${base}${++n}-${Date.now().toString(36)}.com`;

/** A customer with every scope, a webhook on `kinds` and a graphql-ws subscriber to them. */
async function watched(kinds: readonly string[], path: string) {
  const c = await app.customer();
  const hook = await app.call('POST', '/v1/webhooks', {
    key: c.key,
    body: { url: receiver.url + path, events: kinds, description: 'area events' },
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
    const json = Array.isArray(value) ? 'array' : Number.isInteger(value) ? 'integer' : typeof value;
    expect([s.type].flat(), `${type}.${field}`).toContain(json);
  }
}

/**
 * Every event of the watched kinds recorded for the account reached the webhook, signed with its secret, and the
 * subscriber, in the same envelope; returns the recorded (type, data) list.
 */
async function delivered(
  w: { c: { accountId: string }; kinds: readonly string[]; secret: string; sub: Subscriber },
  path: string,
) {
  const recorded = (await rows(w.c.accountId)).filter((r) => w.kinds.includes(r.type));
  for (const r of recorded) expectDeclared(r.type, r.data);
  await w.sub.waitFor(recorded.length);
  expect(w.sub.events.map((e) => [e.id, e.type, e.data])).toEqual(recorded.map((r) => [r.id, r.type, r.data]));
  await runDueWork(app);
  const got = receiver.received.filter((r) => r.path === path);
  expect(got.map((r) => [r.json.id, r.json.type, r.json.data])).toEqual(recorded.map((r) => [r.id, r.type, r.data]));
  for (const r of got) {
    const { t, v1 } = parseSignature(r.headers['x-service-signature']);
    expect(v1).toBe(hmac(w.secret, t, r.body));
  }
  return recorded.map((r) => ({ type: r.type, data: r.data }));
}

describe('the catalogue', () => {
  it('declares the new kinds with their area read scope; webhooks and the subscription accept them', async () => {
    const scopes = Object.fromEntries(NEW_KINDS.map((k) => [k, EVENT_TYPES[k].scope]));
    expect(scopes).toEqual({
      'mail.domain.enabled': 'mail:read',
      'mail.domain.disabled': 'mail:read',
      'mail.mailbox.created': 'mail:read',
      'mail.mailbox.deleted': 'mail:read',
      'mail.mailbox.password.changed': 'mail:read',
      'mail.alias.created': 'mail:read',
      'mail.alias.deleted': 'mail:read',
      'domain.updated': 'domains:read',
      'ticket.customer.replied': 'tickets:read',
      'ticket.closed': 'tickets:read',
    });
    const doc = await app.call('GET', '/v1/openapi.json');
    expect(doc.status).toBe(200);
    for (const k of NEW_KINDS)
      expect(doc.body.components.schemas[`Event_${k.replace(/\./g, '_')}`].properties.type.const).toBe(k);
    // A key without mail:read cannot subscribe a webhook to a mail kind.
    const blind = await app.customer({ scopes: ['webhooks:write', 'webhooks:read', 'tickets:read'] });
    expectError(
      await app.call('POST', '/v1/webhooks', {
        key: blind.key,
        body: { url: `${receiver.url}/x`, events: ['mail.mailbox.created'] },
      }),
      403,
      /mail:read/,
    );
  });
});

describe('mail events', () => {
  it('enable, mailbox create / password / delete, alias create / delete, disable: one event each', async () => {
    const path = '/mail';
    const w = await watched(
      NEW_KINDS.filter((k) => k.startsWith('mail.')),
      path,
    );
    try {
      const domain = unique('mail');
      await proveDomain(app, w.c.accountId, domain);
      const enabled = await app.call('POST', '/v1/mail/domains', { key: w.c.key, body: { domain } });
      expect(enabled.status, enabled.text).toBe(200);
      const mailDomainId = enabled.body.id;
      const password = 'a long secret password 42';
      const box = await app.call('POST', '/v1/mail/mailboxes', {
        key: w.c.key,
        body: { domain_id: mailDomainId, local_part: 'Info', password, quota_mb: 2048 },
      });
      expect(box.status, box.text).toBe(200);
      const newPassword = 'another long secret 43';
      const set = await app.call('PATCH', `/v1/mail/mailboxes/${box.body.id}/password`, {
        key: w.c.key,
        body: { password: newPassword },
      });
      expect(set.status, set.text).toBe(200);
      const alias = await app.call('POST', '/v1/mail/aliases', {
        key: w.c.key,
        body: { domain_id: mailDomainId, source_local: 'sales', destination: 'ada@example.net' },
      });
      expect(alias.status, alias.text).toBe(200);
      expect((await app.call('DELETE', `/v1/mail/aliases/${alias.body.id}`, { key: w.c.key })).status).toBe(200);
      expect((await app.call('DELETE', `/v1/mail/mailboxes/${box.body.id}`, { key: w.c.key })).status).toBe(200);
      // One more mailbox and alias, so the disable reports what it removed.
      const second = await app.call('POST', '/v1/mail/mailboxes', {
        key: w.c.key,
        body: { domain_id: mailDomainId, local_part: 'ops', password },
      });
      expect(second.status, second.text).toBe(200);
      const secondAlias = await app.call('POST', '/v1/mail/aliases', {
        key: w.c.key,
        body: { domain_id: mailDomainId, source_local: 'team', destination: 'ada@example.net' },
      });
      expect(secondAlias.status, secondAlias.text).toBe(200);
      expect((await app.call('DELETE', `/v1/mail/domains/${mailDomainId}`, { key: w.c.key })).status).toBe(200);

      const address = `info@${domain}`;
      const got = await delivered(w, path);
      expect(got).toEqual([
        { type: 'mail.domain.enabled', data: { mailDomainId, domain } },
        {
          type: 'mail.mailbox.created',
          data: { mailboxId: box.body.id, mailDomainId, address, quotaMb: 2048 },
        },
        { type: 'mail.mailbox.password.changed', data: { mailboxId: box.body.id, mailDomainId, address } },
        {
          type: 'mail.alias.created',
          data: { aliasId: alias.body.id, mailDomainId, source: `sales@${domain}`, destination: 'ada@example.net' },
        },
        { type: 'mail.alias.deleted', data: { aliasId: alias.body.id, mailDomainId, source: `sales@${domain}` } },
        { type: 'mail.mailbox.deleted', data: { mailboxId: box.body.id, mailDomainId, address } },
        {
          type: 'mail.mailbox.created',
          data: { mailboxId: second.body.id, mailDomainId, address: `ops@${domain}`, quotaMb: 1024 },
        },
        {
          type: 'mail.alias.created',
          data: {
            aliasId: secondAlias.body.id,
            mailDomainId,
            source: `team@${domain}`,
            destination: 'ada@example.net',
          },
        },
        {
          type: 'mail.domain.disabled',
          data: { mailDomainId, domain, mailboxesRemoved: 1, aliasesRemoved: 1 },
        },
      ]);
      // No password, nor its hash, in any event.
      const text = JSON.stringify(await rows(w.c.accountId));
      for (const secret of [password, newPassword, 'argon', '$2']) expect(text).not.toContain(secret);
    } finally {
      await w.sub.dispose();
    }
  });

  it('refused mail changes record nothing', async () => {
    const c = await app.customer();
    const domain = unique('refused');
    // Not proven: refused.
    expectError(await app.call('POST', '/v1/mail/domains', { key: c.key, body: { domain } }), 400);
    await proveDomain(app, c.accountId, domain);
    const enabled = await app.call('POST', '/v1/mail/domains', { key: c.key, body: { domain } });
    const before = (await rows(c.accountId)).length;
    expect(before).toBe(1);
    expectError(await app.call('POST', '/v1/mail/domains', { key: c.key, body: { domain } }), 400, /already/);
    const body = { domain_id: enabled.body.id, local_part: 'info', password: 'a long secret password 42' };
    expect((await app.call('POST', '/v1/mail/mailboxes', { key: c.key, body })).status).toBe(200);
    expectError(await app.call('POST', '/v1/mail/mailboxes', { key: c.key, body }), 400, /already exists/);
    expectError(
      await app.call('POST', '/v1/mail/aliases', {
        key: c.key,
        body: { domain_id: enabled.body.id, source_local: 'info', destination: 'ada@example.net' },
      }),
      400,
      /is a mailbox/,
    );
    expectError(
      await app.call('PATCH', '/v1/mail/mailboxes/999999/password', {
        key: c.key,
        body: { password: 'a long secret password 42' },
      }),
      404,
    );
    expectError(await app.call('DELETE', '/v1/mail/mailboxes/999999', { key: c.key }), 404);
    expectError(await app.call('DELETE', '/v1/mail/aliases/999999', { key: c.key }), 404);
    // A key of another account cannot delete this one's domain.
    const other = await app.customer();
    expectError(await app.call('DELETE', `/v1/mail/domains/${enabled.body.id}`, { key: other.key }), 404);
    expect((await rows(c.accountId)).map((r) => r.type)).toEqual(['mail.domain.enabled', 'mail.mailbox.created']);
    expect(await rows(other.accountId)).toEqual([]);
  });
});

/** An active (paid) domain of a fresh customer watching `kinds`. */
async function activeDomain(kinds: readonly string[], path: string) {
  const w = await watched(kinds, path);
  const name = unique('settings');
  const order = await app.admin('POST', `/admin/accounts/${w.c.accountId}/domains`, { domain: name, charge: true });
  expect(order.status, order.text).toBe(201);
  return { ...w, domainId: order.body.domain.id as string, name };
}

describe('domain events', () => {
  it('domainUpdate records domain.updated with the settings after the change and what changed', async () => {
    const path = '/domains';
    const w = await activeDomain(['domain.updated'], path);
    try {
      const before = (await app.call('GET', `/v1/domains/${w.domainId}`, { key: w.c.key })).body;
      const nameservers = ['ns1.example.net', 'ns2.example.net'];
      const patch = (body: object) => app.call('PATCH', `/v1/domains/${w.domainId}`, { key: w.c.key, body });
      expect((await patch({ auto_renew: !before.auto_renew })).status).toBe(200);
      expect((await patch({ transfer_lock: !before.transfer_lock, nameservers })).status).toBe(200);
      expect((await patch({ whois_privacy: !before.whois_privacy })).status).toBe(200);
      // The same values again change nothing: no event.
      expect((await patch({ whois_privacy: !before.whois_privacy, nameservers })).status).toBe(200);
      // Refused: nothing to change, a repeated nameserver.
      expectError(await patch({}), 400);
      expectError(await patch({ nameservers: ['ns1.example.net', 'ns1.example.net'] }), 400, /repeat/);

      const after = {
        autoRenew: !before.auto_renew,
        transferLock: !before.transfer_lock,
        whoisPrivacy: !before.whois_privacy,
        nameservers,
      };
      const common = { domainId: w.domainId, domain: w.name };
      const got = (await delivered(w, path)).filter((e) => e.type === 'domain.updated');
      expect(got.map((e) => e.data)).toEqual([
        {
          ...common,
          changed: ['autoRenew'],
          autoRenew: after.autoRenew,
          transferLock: before.transfer_lock,
          whoisPrivacy: before.whois_privacy,
          nameservers: before.nameservers,
        },
        {
          ...common,
          changed: ['transferLock', 'nameservers'],
          autoRenew: after.autoRenew,
          transferLock: after.transferLock,
          whoisPrivacy: before.whois_privacy,
          nameservers,
        },
        { ...common, changed: ['whoisPrivacy'], ...after },
      ]);
    } finally {
      await w.sub.dispose();
    }
  });

  it('a domain not registered yet (409) records nothing', async () => {
    const c = await app.customer();
    const order = await app.admin('POST', `/admin/accounts/${c.accountId}/domains`, { domain: unique('pending') });
    expectError(
      await app.call('PATCH', `/v1/domains/${order.body.domain.id}`, { key: c.key, body: { auto_renew: false } }),
      409,
    );
    expect((await rows(c.accountId)).map((r) => r.type)).not.toContain('domain.updated');
  });
});

describe('ticket events', () => {
  it("the customer's reply is ticket.customer.replied (support's stays ticket.replied); close is ticket.closed", async () => {
    const path = '/tickets';
    const w = await watched(['ticket.replied', 'ticket.customer.replied', 'ticket.closed'], path);
    try {
      const t = (
        await app.call('POST', '/v1/tickets', {
          key: w.c.key,
          body: { subject: 'Mail bounces', message: 'Since 09:00.' },
        })
      ).body;
      expect((await app.admin('POST', `/admin/tickets/${t.id}/replies`, { body: 'Looking.' })).status).toBe(201);
      const reply = await app.call('POST', `/v1/tickets/${t.id}/reply`, { key: w.c.key, body: { body: 'Thanks.' } });
      expect(reply.status, reply.text).toBe(200);
      expect((await app.call('POST', `/v1/tickets/${t.id}/close`, { key: w.c.key })).status).toBe(200);
      // Closing again changes nothing; a reply to a closed ticket is refused.
      expect((await app.call('POST', `/v1/tickets/${t.id}/close`, { key: w.c.key })).status).toBe(200);
      expectError(await app.call('POST', `/v1/tickets/${t.id}/reply`, { key: w.c.key, body: { body: 'x' } }), 400);

      const common = { ticketId: t.id, ticketNumber: t.number, subject: 'Mail bounces' };
      const got = await delivered(w, path);
      expect(got).toEqual([
        { type: 'ticket.replied', data: { ...common, status: 'answered' } },
        { type: 'ticket.customer.replied', data: { ...common, status: 'open' } },
        { type: 'ticket.closed', data: { ...common, status: 'closed' } },
      ]);
    } finally {
      await w.sub.dispose();
    }
  });
});

describe('a credential without the area read scope', () => {
  it('sees none of the new kinds: not in the subscription, GET /events or eventHistory', async () => {
    const w = await activeDomain(NEW_KINDS, '/scoped');
    try {
      // A second key of the same account that reads its account and billing only.
      const minted = await app.admin('POST', `/admin/accounts/${w.c.accountId}/api-keys`, {
        scopes: ['account:read', 'billing:read'],
      });
      expect(minted.status, minted.text).toBe(201);
      const blindKey = minted.body.key as string;
      const blindSub = await subscribeEvents(app.url, blindKey);
      const forbidden = await subscribeEvents(app.url, blindKey, { types: ['mail.mailbox.created'] });
      try {
        const domain = unique('scoped');
        await proveDomain(app, w.c.accountId, domain);
        const enabled = await app.call('POST', '/v1/mail/domains', { key: w.c.key, body: { domain } });
        await app.call('POST', '/v1/mail/mailboxes', {
          key: w.c.key,
          body: { domain_id: enabled.body.id, local_part: 'info', password: 'a long secret password 42' },
        });
        await app.call('PATCH', `/v1/domains/${w.domainId}`, { key: w.c.key, body: { auto_renew: false } });
        const t = await app.call('POST', '/v1/tickets', { key: w.c.key, body: { subject: 's', message: 'm' } });
        await app.call('POST', `/v1/tickets/${t.body.id}/close`, { key: w.c.key });
        // Then a kind the blind key reads: it sees that one, and only that one.
        const deposit = await app.admin('POST', `/admin/accounts/${w.c.accountId}/wallet/deposits`, {
          amountUsdCents: 500,
          gateway: 'card',
        });
        expect(deposit.status, deposit.text).toBe(201);
        await blindSub.waitFor(1);
        await w.sub.waitFor(4);
        await new Promise((r) => setTimeout(r, 300));
        expect(w.sub.events.map((e) => e.type)).toEqual([
          'mail.domain.enabled',
          'mail.mailbox.created',
          'domain.updated',
          'ticket.closed',
        ]);
        expect(blindSub.events.map((e) => e.type)).toEqual(['wallet.deposit.received']);
        expect(forbidden.events).toEqual([]);
        expect(JSON.stringify(forbidden.errors)).toMatch(/mail:read/);

        const all = await app.call('GET', '/v1/events', { key: w.c.key });
        expect(all.body.data.map((e: { type: string }) => e.type)).toEqual(
          expect.arrayContaining(['mail.domain.enabled', 'domain.updated', 'ticket.closed']),
        );
        const blindRest = await app.call('GET', '/v1/events', { key: blindKey });
        expect(blindRest.status, blindRest.text).toBe(200);
        const blindTypes = blindRest.body.data.map((e: { type: string }) => e.type);
        expect(blindTypes).toContain('wallet.deposit.received');
        expect(blindTypes.filter((t: string) => !/^(invoice|wallet)\./.test(t))).toEqual([]);
        const gqlRes = await app.call('POST', '/graphql', {
          key: blindKey,
          body: { query: '{ eventHistory(first: 50) { nodes { type } } }' },
        });
        expect(gqlRes.status, gqlRes.text).toBe(200);
        const historyTypes = gqlRes.body.data.eventHistory.nodes.map((e: { type: string }) => e.type);
        expect(historyTypes).toContain('wallet.deposit.received');
        expect(historyTypes.filter((t: string) => !/^(invoice|wallet)\./.test(t))).toEqual([]);
      } finally {
        await blindSub.dispose();
        await forbidden.dispose();
      }
    } finally {
      await w.sub.dispose();
    }
  });
});
