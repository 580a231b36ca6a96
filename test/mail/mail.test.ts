import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type Customer, type TestApp } from '../helpers/app.ts';
import { proveDomain } from '../helpers/domains.ts';
import { gql } from '../helpers/graphql.ts';
import { expectError } from '../helpers/servers.ts';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(() => app?.stop());

const MAIL = ['mail:read', 'mail:write'];
let n = 0;
const unique = (base = 'example') => `${base}${++n}-${Date.now().toString(36)}.com`;

async function enable(c: Customer, domain = unique()) {
  await proveDomain(app, c.accountId, domain.trim().toLowerCase().replace(/\.$/, ''));
  const res = await app.call('POST', '/v1/mail/domains', { key: c.key, body: { domain } });
  expect(res.status, res.text).toBe(200);
  return res.body;
}

describe('mail domains', () => {
  it('enable, list with integer ids, duplicates → 400, other accounts → 404, scopes enforced', async () => {
    const c = await app.customer({ scopes: MAIL });
    const d = await enable(c, 'Shop-One.example.COM.');
    expect(d).toEqual({
      id: expect.any(Number),
      domain: 'shop-one.example.com',
      status: 'active',
      mailbox_count: 0,
      alias_count: 0,
      created_at: expect.any(String),
    });
    expect(Number.isInteger(d.id)).toBe(true);
    expectError(
      await app.call('POST', '/v1/mail/domains', { key: c.key, body: { domain: 'shop-one.example.com' } }),
      400,
      /already enabled/,
    );
    expectError(
      await app.call('POST', '/v1/mail/domains', { key: c.key, body: { domain: 'not a domain' } }),
      400,
      /domain/,
    );
    expectError(
      await app.call('POST', '/v1/mail/domains', { key: c.key, body: { domain: 'localhost' } }),
      400,
      /domain/,
    );
    const list = await app.call('GET', '/v1/mail/domains', { key: c.key });
    expect(list.body.data).toEqual([d]);
    const other = await app.customer({ scopes: MAIL });
    expect((await app.call('GET', '/v1/mail/domains', { key: other.key })).body.data).toEqual([]);
    // Another account gets the refusal any unproven domain gets: nothing says the name is hosted here.
    expectError(
      await app.call('POST', '/v1/mail/domains', { key: other.key, body: { domain: 'shop-one.example.com' } }),
      400,
      /^Email hosting for shop-one\.example\.com needs proof that you control the domain/,
    );
    expectError(await app.call('DELETE', `/v1/mail/domains/${d.id}`, { key: other.key }), 404);
    expectError(await app.call('GET', `/v1/mail/domains/${d.id}/mailboxes`, { key: other.key }), 404);
    const reader = await app.customer({ scopes: ['mail:read'] });
    expectError(
      await app.call('POST', '/v1/mail/domains', { key: reader.key, body: { domain: unique() } }),
      403,
      /mail:write/,
    );
    expectError(
      await app.call('GET', '/v1/mail/domains', { key: (await app.customer({ scopes: ['servers:read'] })).key }),
      403,
      /mail:read/,
    );
  });
});

describe('mailboxes', () => {
  it('create with a hashed password never returned, list per domain and all, set password, delete', async () => {
    const c = await app.customer({ scopes: MAIL });
    const d = await enable(c);
    const create = await app.call('POST', '/v1/mail/mailboxes', {
      key: c.key,
      body: { domain_id: d.id, local_part: 'Ada.Lovelace', password: 'correct horse battery', quota_mb: 2048 },
    });
    expect(create.status, create.text).toBe(200);
    expect(create.body).toEqual({
      id: expect.any(Number),
      domain_id: d.id,
      local_part: 'ada.lovelace',
      address: `ada.lovelace@${d.domain}`,
      quota_mb: 2048,
      used_mb: 0,
      password_changed_at: expect.any(String),
      created_at: expect.any(String),
    });
    expect(create.text).not.toContain('correct horse');
    const row = await app.running.app.prisma.mailbox.findUniqueOrThrow({ where: { id: create.body.id } });
    expect(row.passwordHash).toMatch(/^scrypt\$/);
    expect(app.logs.join('\n')).not.toContain('correct horse');

    const second = await app.call('POST', '/v1/mail/mailboxes', {
      key: c.key,
      body: { domain_id: d.id, local_part: 'info', password: 'another long password' },
    });
    expect(second.body.quota_mb).toBe(1024);
    const d2 = await enable(c);
    await app.call('POST', '/v1/mail/mailboxes', {
      key: c.key,
      body: { domain_id: d2.id, local_part: 'info', password: 'another long password' },
    });
    const perDomain = await app.call('GET', `/v1/mail/domains/${d.id}/mailboxes`, { key: c.key });
    expect(perDomain.body.data.map((m: { local_part: string }) => m.local_part)).toEqual(['info', 'ada.lovelace']); // newest first
    const all = await app.call('GET', '/v1/mail/mailboxes', { key: c.key });
    expect(all.body.data.map((m: { address: string }) => m.address)).toEqual([
      `info@${d2.domain}`,
      `info@${d.domain}`,
      `ada.lovelace@${d.domain}`,
    ]);
    expect(all.text).not.toMatch(/password"|scrypt/);

    const before = row.passwordHash;
    const pw = await app.call('PATCH', `/v1/mail/mailboxes/${create.body.id}/password`, {
      key: c.key,
      body: { password: 'a brand new passphrase' },
    });
    expect(pw.status, pw.text).toBe(200);
    expect(pw.text).not.toContain('brand new');
    expect(
      (await app.running.app.prisma.mailbox.findUniqueOrThrow({ where: { id: create.body.id } })).passwordHash,
    ).not.toBe(before);
    expectError(
      await app.call('PATCH', `/v1/mail/mailboxes/${create.body.id}/password`, {
        key: c.key,
        body: { password: 'short' },
      }),
      400,
      /password/,
    );

    const other = await app.customer({ scopes: MAIL });
    expectError(
      await app.call('PATCH', `/v1/mail/mailboxes/${create.body.id}/password`, {
        key: other.key,
        body: { password: 'a brand new passphrase' },
      }),
      404,
    );
    expectError(await app.call('DELETE', `/v1/mail/mailboxes/${create.body.id}`, { key: other.key }), 404);
    const del = await app.call('DELETE', `/v1/mail/mailboxes/${create.body.id}`, { key: c.key });
    expect(del.body).toEqual({ id: create.body.id, deleted: true });
    expectError(await app.call('DELETE', `/v1/mail/mailboxes/${create.body.id}`, { key: c.key }), 404);
  });

  it('validates local parts, quotas, passwords and the domain; duplicates → 400', async () => {
    const c = await app.customer({ scopes: MAIL });
    const d = await enable(c);
    const mk = (body: Record<string, unknown>) =>
      app.call('POST', '/v1/mail/mailboxes', {
        key: c.key,
        body: { domain_id: d.id, local_part: 'x', password: 'long enough password', ...body },
      });
    for (const bad of ['', '.ada', 'ada.', 'a..b', 'a b', 'ada@x', 'é', 'a'.repeat(65)])
      expectError(await mk({ local_part: bad }), 400, /local_part/);
    for (const bad of [99, 51_201, 0, -1]) expectError(await mk({ quota_mb: bad }), 400, /quota_mb/);
    expectError(await mk({ quota_mb: 100.5 }), 400);
    expectError(await mk({ password: 'short' }), 400, /password/);
    expectError(await mk({ domain_id: 999_999 }), 400, /domain_id/);
    expectError(await mk({ domain_id: '1' }), 400);
    expect((await mk({ local_part: 'dup' })).status).toBe(200);
    expectError(await mk({ local_part: 'DUP' }), 400, /already exists/);
    expectError(await app.call('GET', '/v1/mail/domains/abc/mailboxes', { key: c.key }), 400);
  });

  it("a service's refusal names the value as each surface calls it: domain_id in REST, domainId in GraphQL", async () => {
    const c = await app.customer({ scopes: MAIL });
    const rest = await app.call('POST', '/v1/mail/mailboxes', {
      key: c.key,
      body: { domain_id: 999_999, local_part: 'ada', password: 'long enough password' },
    });
    expect(rest.body).toMatchObject({
      statusCode: 400,
      param: 'domain_id',
      message: 'domain_id 999999 is not one of your mail domains; see GET /mail/domains.',
    });
    const graph = await gql(
      app,
      `mutation { made: mailboxCreate(domainId: 999999, localPart: "ada", password: "long enough password") { id } }`,
      { key: c.key },
    );
    expect(graph.body.errors).toEqual([
      expect.objectContaining({
        message: 'domainId 999999 is not one of your mail domains; see GET /mail/domains.',
        path: ['made'],
        extensions: expect.objectContaining({ code: 'BAD_REQUEST', status: 400, field: 'domainId' }),
      }),
    ]);
  });
});

describe('aliases', () => {
  it('create with a validated destination, list, delete; duplicates and mailbox clashes → 400', async () => {
    const c = await app.customer({ scopes: MAIL });
    const d = await enable(c);
    const mk = (body: Record<string, unknown>) =>
      app.call('POST', '/v1/mail/aliases', { key: c.key, body: { domain_id: d.id, ...body } });
    const a = await mk({ source_local: 'Sales', destination: 'Team@Partner.example.org' });
    expect(a.status, a.text).toBe(200);
    expect(a.body).toEqual({
      id: expect.any(Number),
      domain_id: d.id,
      source_local: 'sales',
      source: `sales@${d.domain}`,
      destination: 'team@partner.example.org',
      created_at: expect.any(String),
    });
    expectError(await mk({ source_local: 'sales', destination: 'x@example.org' }), 400, /already exists/);
    for (const bad of ['nobody', '@example.org', 'a@b', 'a@@example.org', 'a b@example.org', ''])
      expectError(await mk({ source_local: 'x', destination: bad }), 400, /destination/);
    expectError(await mk({ source_local: 'loop', destination: `loop@${d.domain}` }), 400, /loop/);
    await app.call('POST', '/v1/mail/mailboxes', {
      key: c.key,
      body: { domain_id: d.id, local_part: 'boss', password: 'long enough password' },
    });
    expectError(await mk({ source_local: 'boss', destination: 'x@example.org' }), 400, /mailbox/);
    expectError(
      await app.call('POST', '/v1/mail/mailboxes', {
        key: c.key,
        body: { domain_id: d.id, local_part: 'sales', password: 'long enough password' },
      }),
      400,
      /alias/,
    );
    const list = await app.call('GET', `/v1/mail/domains/${d.id}/aliases`, { key: c.key });
    expect(list.body.data).toEqual([a.body]);
    const other = await app.customer({ scopes: MAIL });
    expectError(await app.call('DELETE', `/v1/mail/aliases/${a.body.id}`, { key: other.key }), 404);
    expectError(
      await app.call('POST', '/v1/mail/aliases', {
        key: other.key,
        body: { domain_id: d.id, source_local: 'x', destination: 'x@example.org' },
      }),
      400,
      /domain_id/,
    );
    expect((await app.call('DELETE', `/v1/mail/aliases/${a.body.id}`, { key: c.key })).body).toEqual({
      id: a.body.id,
      deleted: true,
    });
    expect((await app.call('GET', `/v1/mail/domains/${d.id}/aliases`, { key: c.key })).body.data).toEqual([]);
  });

  it('disabling a domain removes its mailboxes and aliases', async () => {
    const c = await app.customer({ scopes: MAIL });
    const d = await enable(c);
    const keep = await enable(c);
    for (const local of ['a', 'b'])
      await app.call('POST', '/v1/mail/mailboxes', {
        key: c.key,
        body: { domain_id: d.id, local_part: local, password: 'long enough password' },
      });
    await app.call('POST', '/v1/mail/mailboxes', {
      key: c.key,
      body: { domain_id: keep.id, local_part: 'a', password: 'long enough password' },
    });
    await app.call('POST', '/v1/mail/aliases', {
      key: c.key,
      body: { domain_id: d.id, source_local: 'fwd', destination: 'x@example.org' },
    });
    expect(
      (await app.call('GET', '/v1/mail/domains', { key: c.key })).body.data.find((x: { id: number }) => x.id === d.id),
    ).toMatchObject({ mailbox_count: 2, alias_count: 1 });
    const del = await app.call('DELETE', `/v1/mail/domains/${d.id}`, { key: c.key });
    expect(del.status, del.text).toBe(200);
    expect(del.body).toEqual({ id: d.id, domain: d.domain, deleted: true, mailboxes_removed: 2, aliases_removed: 1 });
    expect(
      (await app.call('GET', '/v1/mail/domains', { key: c.key })).body.data.map((x: { id: number }) => x.id),
    ).toEqual([keep.id]);
    expect(
      (await app.call('GET', '/v1/mail/mailboxes', { key: c.key })).body.data.map(
        (m: { address: string }) => m.address,
      ),
    ).toEqual([`a@${keep.domain}`]);
    expect(await app.running.app.prisma.mailAlias.count({ where: { domainId: d.id } })).toBe(0);
    expectError(await app.call('GET', `/v1/mail/domains/${d.id}/aliases`, { key: c.key }), 404);
    // The name is free again.
    expect((await app.call('POST', '/v1/mail/domains', { key: c.key, body: { domain: d.domain } })).status).toBe(200);
  });
});

describe('mail setup', () => {
  it('with a domain: composed records, mx_host mail.<domain>, webmail_url and the client block', async () => {
    const c = await app.customer({ scopes: ['mail:read', 'mail:write'] });
    const d = await enable(c);
    const res = await app.call('GET', `/v1/mail/setup?domain=${d.domain}`, { key: c.key });
    expect(res.status, res.text).toBe(200);
    const host = res.body.client.host;
    expect(res.body).toMatchObject({
      domain: d.domain,
      mx_host: `mail.${d.domain}`,
      webmail_url: expect.stringMatching(/^https:\/\//),
      mail_ip: expect.stringMatching(/^\d+\.\d+\.\d+\.\d+$/),
      client: {
        host: expect.any(String),
        ports: { imap: 993, pop3: 995, smtp: 465, submission: 587 },
        security: { imap: 'SSL/TLS', pop3: 'SSL/TLS', smtp: 'SSL/TLS', submission: 'STARTTLS' },
      },
    });
    const rec = (type: string, name: string) =>
      res.body.records.find((r: { type: string; name: string }) => r.type === type && r.name === name);
    expect(rec('MX', d.domain)).toEqual({
      type: 'MX',
      name: d.domain,
      value: `mail.${d.domain}`,
      priority: 10,
      ttl: 3600,
    });
    expect(rec('A', `mail.${d.domain}`).value).toBe(res.body.mail_ip);
    expect(rec('TXT', d.domain).value).toMatch(/^v=spf1 mx .*~all$/);
    expect(rec('TXT', `default._domainkey.${d.domain}`).value).toMatch(/^v=DKIM1; k=rsa; p=[A-Za-z0-9+/=]{300,}$/);
    expect(rec('TXT', `_dmarc.${d.domain}`).value).toMatch(/^v=DMARC1; p=/);
    expect(rec('CNAME', `autodiscover.${d.domain}`).value).toBe(host);
    expect(rec('SRV', `_imaps._tcp.${d.domain}`).value).toBe(`0 1 993 ${host}`);
  });

  it('without a domain: no records and no fixed mx_host; an unknown domain → 404; a malformed one → 400', async () => {
    const c = await app.customer({ scopes: ['mail:read'] });
    const res = await app.call('GET', '/v1/mail/setup', { key: c.key });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      domain: null,
      records: [],
      mx_host: null,
      webmail_url: expect.any(String),
      client: { host: expect.any(String) },
    });
    expectError(await app.call('GET', '/v1/mail/setup?domain=not-mine.example.com', { key: c.key }), 404);
    expectError(await app.call('GET', '/v1/mail/setup?domain=bad_domain', { key: c.key }), 400, /domain/);
  });
});
