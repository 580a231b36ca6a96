import net, { type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runGit } from '../../src/provider/hosting/git.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { activeHosting, MANAGE } from '../helpers/hosting.ts';
import { accountHolder, signIn, startOAuthApp } from '../helpers/oauth.ts';
import { getAuthorize, pkce } from '../helpers/oauth-code.ts';

/**
 * The one egress policy (src/egress/policy.ts) as the attacks it stops: a customer making this
 * server connect to its own loopback or private network (git deploy, webhooks, OAuth client
 * metadata documents), or asking it what an internal name resolves to.
 */

/** A TCP listener on loopback that counts the connections it is offered and drops them. */
async function listener() {
  let connections = 0;
  const server = net.createServer((socket) => {
    connections++;
    socket.destroy();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    connections: () => connections,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

const NOT_ALLOWED = /^repo_url is not allowed: its host must resolve to public addresses only/;
/** Any sign of what a name resolved to. */
const ADDRESS = /127\.0\.0\.1|::1|\b\d+\.\d+\.\d+\.\d+\b/;

let lis: Awaited<ReturnType<typeof listener>>;
let strict: TestApp;
beforeAll(async () => {
  lis = await listener();
  // Webhooks may reach private addresses here; git must not follow.
  strict = await startTestApp({ webhookAllowPrivate: true, hostingAllowLocalGit: false });
});
afterAll(async () => {
  await strict?.stop();
  await lis?.close();
});

async function deploy(app: TestApp, repoUrl: string) {
  const c = await app.customer({ scopes: MANAGE });
  const id = await activeHosting(app, c);
  const res = await app.call('POST', `/v1/hosting/${id}/git/deploy`, {
    key: c.key,
    body: { repo_url: repoUrl, branch: 'main' },
  });
  const status = await app.call('GET', `/v1/hosting/${id}/git`, { key: c.key });
  return { res, status: status.body };
}

describe('git deploy cannot reach loopback or private addresses', () => {
  it('ssh to a listening loopback port, in every spelling, is refused before any connection even with WEBHOOK_ALLOW_PRIVATE=1', async () => {
    const p = lis.port;
    for (const url of [
      `ssh://git@127.0.0.1:${p}/x.git`,
      `ssh://git@localhost:${p}/x.git`,
      `ssh://git@2130706433:${p}/x.git`,
      `ssh://git@0x7f.0.0.1:${p}/x.git`,
      `ssh://git@0177.0.0.1:${p}/x.git`,
      `ssh://git@127.1:${p}/x.git`,
      `ssh://git@[::1]:${p}/x.git`,
      `ssh://git@[::ffff:127.0.0.1]:${p}/x.git`,
      `ssh://git@0.0.0.0:${p}/x.git`,
      'git@127.0.0.1:x.git',
      'git@localhost:x.git',
      'git@10.0.0.1:x.git',
      'git@169.254.169.254:x.git',
      'git@224.0.0.1:x.git',
    ]) {
      const { res, status } = await deploy(strict, url);
      expect(res.status, url).toBe(400);
      expect(res.body.message, url).toMatch(NOT_ALLOWED);
      expect(res.body.message, url).not.toMatch(ADDRESS);
      expect(status, url).toMatchObject({ connected: false, status: 'not_connected', repo_url: null });
    }
    // A host ssh would read differently from the resolver cannot be pinned: refused too.
    const escaped = await deploy(strict, `ssh://git@127%2e0.0.1:${p}/x.git`);
    expect(escaped.res.status).toBe(400);
    expect(escaped.res.body.message).toMatch(/^repo_url must name its host by a DNS name or an IP address/);
    expect(lis.connections()).toBe(0);
  });

  it('http to a listening loopback port is refused (ssh only), without a connection or an address in the error', async () => {
    const { res, status } = await deploy(strict, `http://127.0.0.1:${lis.port}/x.git`);
    expect(res.status).toBe(400);
    expect(res.body.message).toMatch(/repo_url must be an SSH repository address/);
    expect(res.body.message).not.toMatch(/127\.0\.0\.1/);
    expect(status.connected).toBe(false);
    expect(lis.connections()).toBe(0);
  });

  it('a name that does not resolve gets the very same answer as one that resolves to loopback (no DNS oracle)', async () => {
    const internal = await deploy(strict, 'git@localhost:x.git');
    const missing = await deploy(strict, 'git@no-such-host.invalid:x.git');
    expect(internal.res.body.message).toMatch(NOT_ALLOWED);
    expect(missing.res.status).toBe(400);
    expect(missing.res.body).toEqual(internal.res.body);
  });

  it('with HOSTING_ALLOW_LOCAL_GIT=1 the loopback ssh host is allowed: the connection is made', async () => {
    const dev = await startTestApp({ hostingAllowLocalGit: true });
    try {
      const before = lis.connections();
      const { res } = await deploy(dev, `ssh://git@127.0.0.1:${lis.port}/x.git`);
      // The listener is not an ssh server: the clone fails, after connecting.
      expect(res.status).toBe(400);
      expect(res.body.message).toMatch(/^git clone failed/);
      expect(lis.connections()).toBeGreaterThan(before);
    } finally {
      await dev.stop();
    }
  });

  it('ssh connects to the checked address, not to what its own resolver would find', async () => {
    const before = lis.connections();
    // The name does not resolve at all: only the pin can bring ssh to the listener.
    const host = 'pinned.invalid';
    await expect(
      runGit(['ls-remote', `ssh://git@${host}:${lis.port}/x.git`], {
        sshKey: '/dev/null',
        allowLocal: false,
        pin: { host, address: '127.0.0.1' },
        timeoutMs: 20_000,
      }),
    ).rejects.toThrow(/git ls-remote failed/);
    expect(lis.connections()).toBeGreaterThan(before);
  });
});

describe('webhooks and client metadata documents: no DNS oracle, no private fetch', () => {
  it('a webhook URL whose name resolves to loopback is refused without saying where it resolves, like a name that does not resolve', async () => {
    const prod = await startOAuthApp({ webhookAllowPrivate: false });
    try {
      const c = await prod.customer();
      const internal = await prod.call('POST', '/v1/webhooks', {
        key: c.key,
        body: { url: `https://localhost:${lis.port}/hook`, events: ['*'] },
      });
      const missing = await prod.call('POST', '/v1/webhooks', {
        key: c.key,
        body: { url: 'https://no-such-host.invalid/hook', events: ['*'] },
      });
      expect(internal.status).toBe(400);
      expect(internal.body.message).toMatch(/not allowed/);
      expect(internal.body.message).not.toMatch(ADDRESS);
      expect(missing.body).toEqual(internal.body);
      expect(await prod.running.app.prisma.webhook.count({ where: { accountId: c.accountId } })).toBe(0);

      // A client metadata document on a private address is never fetched.
      const s = await signIn(prod, await accountHolder(prod));
      const before = lis.connections();
      for (const clientId of [
        `https://localhost:${lis.port}/client.json`,
        `https://127.0.0.1:${lis.port}/client.json`,
        `https://[::ffff:7f00:1]:${lis.port}/client.json`,
      ]) {
        const r = await getAuthorize(
          prod,
          {
            client_id: clientId,
            redirect_uri: 'http://127.0.0.1/callback',
            code_challenge: pkce().challenge,
            scope: 'servers:read',
            state: 's',
          },
          s,
        );
        expect(r.status, clientId).toBe(400);
        expect(r.html, clientId).toContain('not allowed');
        expect(await prod.running.app.prisma.oAuthClient.count({ where: { id: clientId } })).toBe(0);
      }
      expect(lis.connections()).toBe(before);
    } finally {
      await prod.stop();
    }
  });
});
