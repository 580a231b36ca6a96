import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { providerServerLog } from '../../src/provider/simulated.ts';
import type { TestApp } from '../helpers/app.ts';
import { startOAuthApp } from '../helpers/oauth.ts';
import { buy } from '../helpers/pools.ts';
import { advance, expectError, runningServer } from '../helpers/servers.ts';

const WRITE = ['servers:read', 'servers:write'];

let app: TestApp;
beforeAll(async () => {
  app = await startOAuthApp();
});
afterAll(() => app?.stop());

/** A WebSocket to the console, as the page opens it; everything it prints is gathered. */
async function connect(opts: { origin?: string } = {}) {
  const ws = new WebSocket(`${app.url.replace('http', 'ws')}/server-console/socket`, {
    headers: opts.origin ? { Origin: opts.origin } : {},
  });
  let text = '';
  ws.on('message', (d) => (text += String(d)));
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    ws.on('close', (code, reason) => resolve({ code, reason: String(reason) })),
  );
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
  return {
    ws,
    closed,
    printed: () => text,
    /** Waits until the console has printed `what` (a string or pattern). */
    async waitFor(what: string | RegExp, timeoutMs = 5000) {
      const started = Date.now();
      while (!(typeof what === 'string' ? text.includes(what) : what.test(text))) {
        if (Date.now() - started > timeoutMs) throw new Error(`not printed: ${what}\nprinted:\n${text}`);
        await new Promise((r) => setTimeout(r, 20));
      }
    },
    type: (keys: string) => ws.send(keys),
  };
}

const ticketOf = (url: string) => new URL(url).hash.replace(/^#ticket=/, '');

describe('POST /v1/servers/:id/console', () => {
  it('returns a single-use URL for a running server, valid 60 s, under servers:write', async () => {
    const c = await app.customer({ scopes: WRITE });
    const id = await runningServer(app, c);
    const res = await app.call('POST', `/v1/servers/${id}/console`, { key: c.key });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({
      serverId: id,
      url: expect.stringMatching(new RegExp(`^${app.url}/server-console/${id}#ticket=con_[\\w-]{32}$`)),
      expiresAt: expect.any(String),
    });
    const issued = new Date(res.headers.get('date') ?? Date.now());
    expect(new Date(res.body.expiresAt).getTime()).toBeGreaterThan(issued.getTime());
    // The ticket is stored only as a hash.
    const ticket = ticketOf(res.body.url);
    const rows = await app.running.app.prisma.providerConsoleTicket.findMany({ where: { serverId: id } });
    expect(rows).toHaveLength(1);
    expect(rows[0].ticketHash).not.toContain(ticket);
    expect(rows[0].expiresAt.getTime() - rows[0].createdAt.getTime()).toBe(60_000);
  });

  it('is refused to a read-only key (403), for another account (404) and for a server that is not running (409); nothing is issued', async () => {
    const owner = await app.customer({ scopes: WRITE });
    const id = await runningServer(app, owner);
    const reader = await app.customer({ scopes: ['servers:read'] });
    const readerOfOwner = (
      await app.admin('POST', `/admin/accounts/${owner.accountId}/api-keys`, { scopes: ['servers:read'] })
    ).body.key;
    expectError(await app.call('POST', `/v1/servers/${id}/console`, { key: readerOfOwner }), 403);
    const stranger = await app.customer({ scopes: WRITE });
    expectError(await app.call('POST', `/v1/servers/${id}/console`, { key: stranger.key }), 404);
    expectError(await app.call('POST', `/v1/servers/${id}/console`, { key: reader.key }), 403);
    await app.call('POST', `/v1/servers/${id}/power/stop`, { key: owner.key });
    expectError(
      await app.call('POST', `/v1/servers/${id}/console`, { key: owner.key }),
      409,
      /Only a running server has a console; this one is stopped/,
    );
    const provisioning = (
      await app.admin('POST', `/admin/accounts/${owner.accountId}/servers`, {
        productId: 'std-2c-4g-50',
        label: 'new',
        os: 'linux',
        osTemplate: 'debian-12',
      })
    ).body.id;
    expectError(await app.call('POST', `/v1/servers/${provisioning}/console`, { key: owner.key }), 409);
    expect(await app.running.app.prisma.providerConsoleTicket.count({ where: { serverId: id } })).toBe(0);
    expect(await providerServerLog(app.running.app.prisma, id)).not.toContain('console ticket issued');
  });
});

describe('the console WebSocket', () => {
  let owner: Awaited<ReturnType<TestApp['customer']>>;
  let id: string;
  let password: string;
  const open = async () => (await app.call('POST', `/v1/servers/${id}/console`, { key: owner.key })).body.url as string;

  beforeAll(async () => {
    // servers:destroy for the reinstall at the end.
    owner = await app.customer({ scopes: [...WRITE, 'servers:destroy'] });
    id = await runningServer(app, owner, { label: 'db-7' });
    const reset = await app.call('POST', `/v1/servers/${id}/password-reset`, { key: owner.key });
    expect(reset.status, reset.text).toBe(200);
    password = reset.body.rootPassword;
  });

  it('logs in with root and the current root password and runs the simulated shell', async () => {
    const c = await connect();
    c.type(JSON.stringify({ ticket: ticketOf(await open()) }));
    await c.waitFor('Ubuntu 24.04 LTS db-7 ttyS0');
    await c.waitFor('db-7 login: ');
    c.type('root\r');
    await c.waitFor('Password: ');
    c.type(`${password}\r`);
    await c.waitFor('root@db-7:~# ');
    // The password is never echoed.
    expect(c.printed()).not.toContain(password);
    c.type('hostname\r');
    await c.waitFor(/hostname\r\ndb-7\r\n/);
    c.type('whoami\r');
    await c.waitFor(/whoami\r\nroot\r\n/);
    c.type('uname -a\r');
    await c.waitFor(/Linux db-7 6\.8\.0-\S+ .*x86_64 GNU\/Linux/);
    c.type('cat /etc/os-release\r');
    await c.waitFor('PRETTY_NAME="Ubuntu 24.04 LTS"');
    const ips = (await app.call('GET', `/v1/servers/${id}/ips`, { key: owner.key })).body.data;
    c.type('ip addr\r');
    await c.waitFor(`inet ${ips[0].address ?? ips[0].ip}/32 scope global eth0`);
    c.type('uptime\r');
    await c.waitFor(/ up \d+ min,/);
    c.type('rm -rf /\r');
    await c.waitFor('-bash: rm: command not found');
    c.type('exit\r');
    await c.waitFor(/logout\r\n[\s\S]*db-7 login: $/);
    c.ws.close();
  });

  it('refuses a wrong password and hangs up after three', async () => {
    const c = await connect();
    c.type(JSON.stringify({ ticket: ticketOf(await open()) }));
    await c.waitFor('login: ');
    for (const [user, pass] of [
      ['root', 'wrong password'],
      ['admin', password],
      ['root', `${password}x`],
    ]) {
      c.type(`${user}\r`);
      await c.waitFor(/Password: $/);
      c.type(`${pass}\r`);
      await c.waitFor(/Login incorrect\r\n(db-7 login: |Maximum)/);
    }
    await c.waitFor('Maximum number of tries exceeded (3)');
    expect((await c.closed).code).toBe(1000);
    expect(c.printed()).not.toContain('root@db-7');
  });

  it('a ticket opens one connection once; an expired, unknown or missing ticket opens none', async () => {
    const url = await open();
    const first = await connect();
    first.type(JSON.stringify({ ticket: ticketOf(url) }));
    await first.waitFor('login: ');
    const second = await connect();
    second.type(JSON.stringify({ ticket: ticketOf(url) }));
    expect((await second.closed).code).toBe(4401);
    expect(second.printed()).toBe('');
    first.ws.close();

    const late = await open();
    await advance(app, 61);
    const expired = await connect();
    expired.type(JSON.stringify({ ticket: ticketOf(late) }));
    expect((await expired.closed).code).toBe(4401);
    // An expired ticket stays unused: it was refused, not spent.
    expect(await app.running.app.prisma.providerConsoleTicket.count({ where: { serverId: id, usedAt: null } })).toBe(1);

    for (const bad of [
      JSON.stringify({ ticket: 'con_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' }),
      JSON.stringify({ ticket: 42 }),
      'root',
    ]) {
      const c = await connect();
      c.type(bad);
      expect((await c.closed).code).toBe(4401);
      expect(c.printed()).toBe('');
    }
  });

  it('hangs up at the next line once the server stops', async () => {
    const c = await connect();
    c.type(JSON.stringify({ ticket: ticketOf(await open()) }));
    await c.waitFor('login: ');
    await app.call('POST', `/v1/servers/${id}/power/stop`, { key: owner.key });
    c.type('root\r');
    await c.waitFor('[the server is stopped: console closed]');
    expect((await c.closed).code).toBe(1000);
    await app.call('POST', `/v1/servers/${id}/power/start`, { key: owner.key });
  });

  it('refuses an upgrade from another site, and a ticket for a server stopped since', async () => {
    await expect(connect({ origin: 'https://evil.example' })).rejects.toThrow(/403/);
    const url = await open();
    await app.call('POST', `/v1/servers/${id}/power/stop`, { key: owner.key });
    const c = await connect();
    c.type(JSON.stringify({ ticket: ticketOf(url) }));
    expect((await c.closed).code).toBe(4401);
    await app.call('POST', `/v1/servers/${id}/power/start`, { key: owner.key });
  });

  it('keeps only a slow hash of the root password, and a reinstall drops it', async () => {
    const row = await app.running.app.prisma.providerServer.findUniqueOrThrow({ where: { serverId: id } });
    expect(row.rootPasswordHash).toMatch(/^\$2[aby]\$10\$/);
    expect(await providerServerLog(app.running.app.prisma, id)).not.toContain(password);
    const reinstall = await app.call('POST', `/v1/servers/${id}/reinstall`, {
      key: owner.key,
      body: { osTemplate: 'debian-12' },
    });
    expect(reinstall.status, reinstall.text).toBe(200);
    await advance(app, 120);
    const c = await connect();
    c.type(JSON.stringify({ ticket: ticketOf(await open()) }));
    await c.waitFor('Debian GNU/Linux 12 db-7 ttyS0');
    c.type(`root\r${password}\r`);
    await c.waitFor('Login incorrect');
    c.ws.close();
  });

  it('opens the same way on a private-only pool server: no public interface, its pool network on eth1', async () => {
    const c0 = await app.customer({ scopes: WRITE, walletBalanceUsdCents: 100_000 });
    const pool = await buy(app, c0);
    const made = await app.call('POST', `/v1/pools/${pool.id}/servers`, {
      key: c0.key,
      body: { productId: 'std-2c-4g-50', label: 'inner', osTemplate: 'ubuntu-24.04', ipCount: 0 },
    });
    expect(made.status, made.text).toBe(200);
    await advance(app, 180);
    const reset = await app.call('POST', `/v1/servers/${made.body.id}/password-reset`, { key: c0.key });
    const link = await app.call('POST', `/v1/servers/${made.body.id}/console`, { key: c0.key });
    expect(link.status, link.text).toBe(200);
    const c = await connect();
    c.type(JSON.stringify({ ticket: ticketOf(link.body.url) }));
    await c.waitFor('inner login: ');
    c.type(`root\r${reset.body.rootPassword}\r`);
    await c.waitFor('root@inner:~# ');
    c.type('ip addr\r');
    await c.waitFor(/inet 10\.\d+\.\d+\.\d+\/24 scope global eth1/);
    expect(c.printed()).not.toContain('eth0');
    c.ws.close();
  });
});
