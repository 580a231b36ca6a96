import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { isPublicAddress } from '../../src/egress/policy.ts';
import { ID_PREFIX, newId } from '../../src/db/ids.ts';

// Production settings: WEBHOOK_ALLOW_PRIVATE unset.
let app: TestApp;
beforeAll(async () => {
  app = await startTestApp({ webhookAllowPrivate: false });
});
afterAll(() => app?.stop());

describe('webhook URLs: https to public addresses only (SSRF guard)', () => {
  for (const [url, why] of [
    ['http://127.0.0.1/hook', /^url must use https\.$/],
    ['http://example.com/hook', /^url must use https\.$/],
    ['ftp://example.com/hook', /^url must use https\.$/],
    ['https://127.0.0.1/hook', /loopback, private, link-local or metadata/],
    ['https://10.0.0.1/hook', /loopback, private, link-local or metadata/],
    ['https://192.168.1.10/hook', /loopback, private, link-local or metadata/],
    ['https://169.254.169.254/latest/meta-data', /loopback, private, link-local or metadata/],
    ['https://[::1]/hook', /loopback, private, link-local or metadata/],
    ['https://[::ffff:127.0.0.1]/hook', /loopback, private, link-local or metadata/],
    ['https://[fd00:ec2::254]/hook', /loopback, private, link-local or metadata/],
    // A name is refused without saying what it resolves to (no DNS oracle): see test/security/egress.test.ts.
    [
      'https://localhost/hook',
      /^url is not allowed: its host must resolve to public addresses only, not to a loopback, private, link-local or metadata address\.$/,
    ],
  ] as const) {
    it(`refuses ${url} on create and on update`, async () => {
      const c = await app.customer();
      const res = await app.call('POST', '/v1/webhooks', { key: c.key, body: { url, events: ['*'] } });
      expect(res.status).toBe(400);
      expect(res.body.message).toMatch(why);
      expect(await app.running.app.prisma.webhook.count({ where: { accountId: c.accountId } })).toBe(0);
    });
  }

  it('refuses a private URL on PATCH of an existing subscription', async () => {
    const c = await app.customer();
    // The subscription as an app that allows private targets would have stored it: this test
    // names no public address it could send to (and the test app runs no delivery anyway).
    const stored = 'https://127.0.0.1:9/hook';
    const hook = await app.running.app.prisma.webhook.create({
      data: {
        id: newId(ID_PREFIX.webhook),
        accountId: c.accountId,
        url: stored,
        events: ['*'],
        secretEnc: 'unused',
        secretHint: 'whsec_…',
      },
    });
    for (const url of [
      'https://10.0.0.1/x',
      'https://169.254.169.254/',
      // 93.184.215.14 is public, over plain http: only asserted refused (400); never connected to.
      'http://93.184.215.14/x',
      'https://localhost/x',
    ]) {
      const res = await app.call('PATCH', `/v1/webhooks/${hook.id}`, { key: c.key, body: { url } });
      expect(res.status, url).toBe(400);
    }
    expect((await app.call('GET', `/v1/webhooks/${hook.id}`, { key: c.key })).body.url).toBe(stored);
    expect((await app.call('DELETE', `/v1/webhooks/${hook.id}`, { key: c.key })).status).toBe(200);
  });

  it('with WEBHOOK_ALLOW_PRIVATE=1, another scheme is refused naming both http and https', async () => {
    const dev = await startTestApp({ webhookAllowPrivate: true });
    try {
      const c = await dev.customer();
      for (const url of ['ftp://x', 'ws://127.0.0.1/hook', 'file:///etc/passwd']) {
        const res = await dev.call('POST', '/v1/webhooks', { key: c.key, body: { url, events: ['*'] } });
        expect(res.status, url).toBe(400);
        expect(res.body).toEqual({
          statusCode: 400,
          message: 'url must use http or https.',
          error: 'Bad Request',
          code: 'BAD_REQUEST',
          param: 'url',
        });
      }
      expect(
        (
          await dev.call('POST', '/v1/webhooks', {
            key: c.key,
            body: { url: 'http://127.0.0.1:9/hook', events: ['*'] },
          })
        ).status,
      ).toBe(200);
    } finally {
      await dev.stop();
    }
  });

  it('classifies addresses', () => {
    // Classified only: nothing connects to these public addresses.
    for (const a of ['8.8.8.8', '93.184.215.14', '2606:4700:4700::1111']) expect(isPublicAddress(a), a).toBe(true);
    for (const a of [
      '0.0.0.0',
      '127.0.0.53',
      '10.1.2.3',
      '100.64.0.1',
      '100.100.100.200',
      '172.16.0.1',
      '172.31.255.255',
      '192.168.0.1',
      '169.254.169.254',
      // 168.63.129.16, a cloud's metadata address: only classified (not public), never contacted.
      '168.63.129.16',
      '224.0.0.1',
      '255.255.255.255',
      '::',
      '::1',
      '::ffff:10.0.0.1',
      'fe80::1',
      'fc00::1',
      'fd00:ec2::254',
      'ff02::1',
      '2001:db8::1',
      '64:ff9b::a00:1',
    ]) {
      expect(isPublicAddress(a), a).toBe(false);
    }
  });
});
