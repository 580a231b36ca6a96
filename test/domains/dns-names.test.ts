import { describe, expect, it } from 'vitest';
import { startTestApp, type Json } from '../helpers/app.ts';
import { activeHosting } from '../helpers/hosting.ts';
import { runningServer } from '../helpers/servers.ts';

/**
 * One DNS-name rule (src/modules/domains/names.ts) for every name the API takes: a PTR target,
 * a hosting custom domain, a domain registration (operator API) and a mail domain accept and refuse the same
 * names (the servers and hosting modules used to have looser copies that let `example.c0m` in).
 */
const ACCEPTED = ['example.com', 'Mail.Example.COM.', 'xn--bcher-kva.example', 'a-b.example.co.uk', 'example.xn--p1ai'];
const REFUSED = [
  'example.c0m',
  'example.123',
  'localhost',
  '-bad.example.com',
  'bad-.example.com',
  'under_score.example.com',
  `${'a'.repeat(64)}.example.com`,
  '1.2.3.4', // an address is not a domain name: only asserted refused, never resolved or contacted
  'example..com',
  '',
];

describe('one DNS-name rule on every surface that takes a name', () => {
  it('PTR, hosting custom domain, domain registration and mail domain agree', async () => {
    const app = await startTestApp();
    try {
      const c = await app.customer({ walletBalanceUsdCents: 1_000_000 });
      const serverId = await runningServer(app, c);
      const ip = (await app.call('GET', `/v1/servers/${serverId}/ips`, { key: c.key })).body;
      const address = (Array.isArray(ip) ? ip : ip.data).find((x: { zoneHosted: boolean }) => x.zoneHosted).ip;
      const hostingId = await activeHosting(app, c);
      const surfaces: [string, (name: string) => Promise<{ status: number; body: Json }>][] = [
        [
          'ptr',
          (name) =>
            app.call('PUT', `/v1/servers/${serverId}/ips/${address}/ptr`, { key: c.key, body: { hostname: name } }),
        ],
        [
          'hosting custom domain',
          (name) => app.call('PUT', `/v1/hosting/${hostingId}/custom-domain`, { key: c.key, body: { domain: name } }),
        ],
        [
          'domain registration',
          (name) => app.admin('POST', `/admin/accounts/${c.accountId}/domains`, { domain: name, periodYears: 1 }),
        ],
        ['mail domain', (name) => app.call('POST', '/v1/mail/domains', { key: c.key, body: { domain: name } })],
      ];
      const disagreements: string[] = [];
      for (const [surface, send] of surfaces) {
        for (const name of REFUSED) {
          const r = await send(name);
          if (r.status !== 400 || !/must be a|is required/.test(r.body.message))
            disagreements.push(`${surface} took ${JSON.stringify(name)}: ${r.status} ${r.body.message}`);
        }
        for (const name of ACCEPTED) {
          const r = await send(name);
          if (r.status === 400 && /labels of letters/.test(r.body.message))
            disagreements.push(`${surface} refused ${JSON.stringify(name)}: ${r.body.message}`);
        }
      }
      expect(disagreements).toEqual([]);
    } finally {
      await app.stop();
    }
  }, 120_000);
});
