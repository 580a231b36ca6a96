import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { TrustedProxies } from '../../src/trusted-proxies.ts';
import type { TestApp } from '../helpers/app.ts';
import { runSvc } from '../helpers/cli.ts';
import { accountHolder, postSignIn, startOAuthApp, type Holder } from '../helpers/oauth.ts';

/**
 * TRUST_PROXY (docs/REFERENCE.md: Client address): whose X-Forwarded-For is believed. Unset, the
 * client is the socket's peer whatever the header says; set, the client is the right-most hop
 * that is not a trusted proxy, so a forged hop to its left changes nothing. Every per-address
 * limit counts by that one address. The test's own requests come from 127.0.0.1.
 */

/** One JSON sign-in attempt as the dashboard makes it, with the given X-Forwarded-For (none when undefined). */
async function signInAttempt(app: TestApp, email: string, password: string, forwardedFor?: string) {
  const res = await postSignIn(
    app.url,
    { email, password },
    forwardedFor === undefined ? {} : { 'X-Forwarded-For': forwardedFor },
  );
  await res.text();
  return { status: res.status, retryAfter: res.headers.get('retry-after'), setCookie: res.headers.getSetCookie() };
}

/** Ten wrong passwords for `email`, each with the X-Forwarded-For `forwardedFor(i)` gives; their statuses. */
async function tenWrong(app: TestApp, email: string, forwardedFor: (i: number) => string) {
  const statuses: number[] = [];
  for (let i = 0; i < 10; i++) statuses.push((await signInAttempt(app, email, `guess-${i}`, forwardedFor(i))).status);
  return statuses;
}

/** X-RateLimit-Remaining of an anonymous /v1 call (the `ip:` budget) from the given forwarded client. */
async function anonymousRemaining(app: TestApp, forwardedFor: string): Promise<number> {
  const res = await fetch(`${app.url}/v1/account`, { headers: { 'X-Forwarded-For': forwardedFor } });
  await res.text();
  expect(res.status).toBe(401);
  return Number(res.headers.get('x-ratelimit-remaining'));
}

describe('TRUST_PROXY unset: X-Forwarded-For is not believed', () => {
  let app: TestApp;
  let victim: Holder;
  beforeAll(async () => {
    app = await startOAuthApp();
    victim = await accountHolder(app);
  });
  afterAll(async () => {
    await app?.stop();
  });

  it('a guesser forging a new X-Forwarded-For on every attempt is still locked after ten, as its socket', async () => {
    const statuses = await tenWrong(app, victim.email, (i) => `198.51.100.${i + 1}`);
    expect(statuses).toEqual(Array(10).fill(401));
    const eleventh = await signInAttempt(app, victim.email, victim.password, '203.0.113.200');
    expect(eleventh.status).toBe(429);
    expect(Number(eleventh.retryAfter)).toBeGreaterThan(0);
    expect(eleventh.setCookie.some((c) => c.startsWith('svc_session='))).toBe(false);
  });

  it('the anonymous budget is one per socket address, whatever the header says', async () => {
    const first = await anonymousRemaining(app, '198.51.100.77');
    expect(await anonymousRemaining(app, '203.0.113.77')).toBe(first - 1);
  });
});

describe('TRUST_PROXY=127.0.0.1: the client is the right-most hop that is not the proxy', () => {
  let app: TestApp;
  let victim: Holder;
  beforeAll(async () => {
    app = await startOAuthApp({ trustProxy: TrustedProxies.parse('127.0.0.1') });
    victim = await accountHolder(app);
  });
  afterAll(async () => {
    await app?.stop();
  });

  it('one forwarded client locked out of an e-mail leaves another client of the same proxy free to sign in', async () => {
    expect(await tenWrong(app, victim.email, () => '203.0.113.5')).toEqual(Array(10).fill(401));
    const locked = await signInAttempt(app, victim.email, victim.password, '203.0.113.5');
    expect(locked.status).toBe(429);
    expect(Number(locked.retryAfter)).toBeGreaterThan(0);
    // The owner, behind the same proxy from their own address.
    const owner = await signInAttempt(app, victim.email, victim.password, '203.0.113.6');
    expect(owner.status).toBe(200);
    expect(owner.setCookie.some((c) => c.startsWith('svc_session='))).toBe(true);
  });

  it('a forged left-most hop does not escape the lockout: the proxy appended the real address to its right', async () => {
    for (const forged of ['198.51.100.9, 203.0.113.5', '127.0.0.1, 203.0.113.5', 'nonsense, 203.0.113.5'])
      expect((await signInAttempt(app, victim.email, victim.password, forged)).status, forged).toBe(429);
    // A chain of trusted proxies is walked through to the first hop that is not one.
    expect((await signInAttempt(app, victim.email, victim.password, '203.0.113.5, 127.0.0.1')).status).toBe(429);
    // IPv4-mapped and bracketed-with-port spellings of the same address are the same client.
    expect((await signInAttempt(app, victim.email, victim.password, '[::ffff:203.0.113.5]:4711')).status).toBe(429);
  });

  it('the anonymous, inbound hook and browser-SSH terminal budgets are per forwarded client', async () => {
    const a = await anonymousRemaining(app, '192.0.2.10');
    expect(await anonymousRemaining(app, '192.0.2.11')).toBe(a);
    expect(await anonymousRemaining(app, '192.0.2.10')).toBe(a - 1);
    const hook = async (forwardedFor: string) => {
      const res = await fetch(`${app.url}/hooks/git/host_none`, {
        method: 'POST',
        headers: { 'X-Forwarded-For': forwardedFor, 'Content-Type': 'application/json' },
        body: '{}',
      });
      await res.text();
      return Number(res.headers.get('x-ratelimit-remaining'));
    };
    const h = await hook('192.0.2.20');
    expect(await hook('192.0.2.21')).toBe(h);
    expect(await hook('192.0.2.20')).toBe(h - 1);
    const terminal = async (forwardedFor: string) => {
      const res = await fetch(`${app.url}/ssh-terminal/sts_none/hello`, {
        method: 'POST',
        headers: { 'X-Forwarded-For': forwardedFor, 'X-Terminal-Token': 'none' },
      });
      await res.text();
      return Number(res.headers.get('x-ratelimit-remaining'));
    };
    const t = await terminal('192.0.2.30');
    expect(await terminal('192.0.2.31')).toBe(t);
    expect(await terminal('192.0.2.30')).toBe(t - 1);
  });

  it('without X-Forwarded-For the proxy itself is the client', async () => {
    const a = await anonymousRemaining(app, '');
    const res = await fetch(`${app.url}/v1/account`);
    await res.text();
    expect(Number(res.headers.get('x-ratelimit-remaining'))).toBe(a - 1);
  });
});

describe('a bad TRUST_PROXY', () => {
  it('is refused by the configuration with the entry named', () => {
    for (const bad of ['10.0.0.0/33', 'proxy.example', '10.0.0.1/8/1', ' , ', '::1/129', '10.0.0.0/x'])
      expect(() => loadConfig({ TRUST_PROXY: bad }), bad).toThrow(/TRUST_PROXY/);
    const ok = loadConfig({ TRUST_PROXY: 'loopback, 10.0.0.0/8, 192.0.2.7, fd00::/8, 2001:db8::1' }).trustProxy!;
    expect(
      ['127.0.0.1', '127.9.9.9', '::1', '10.1.2.3', '192.0.2.7', 'fd00::5', '2001:db8::1'].every((a) => ok.has(a)),
    ).toBe(true);
    expect(['192.0.2.8', '11.0.0.1', 'fe80::1', '2001:db8::2'].some((a) => ok.has(a))).toBe(false);
    expect(loadConfig({}).trustProxy).toBeUndefined();
  });

  it('stops `svc serve` at start with one line naming it, before anything listens', async () => {
    const run = await runSvc(['serve'], { TRUST_PROXY: 'loopback,10.0.0.0/33', DATA_DIR: '/nonexistent/svc-trust' });
    expect(run.code).toBe(2);
    expect(run.stderr.trim()).toBe(
      'svc: TRUST_PROXY: "10.0.0.0/33" is not an IP address, a CIDR block (10.0.0.0/8, fd00::/8) or "loopback"',
    );
    expect(run.stdout).toBe('');
  }, 60_000);
});
