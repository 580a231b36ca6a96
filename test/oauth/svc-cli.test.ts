import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../helpers/app.ts';
import { browserSignIn, ensureDashboardBuilt, hasChromium, launchBrowser, type Browser } from '../helpers/browser.ts';
import { accountHolder, oauthPost, startOAuthApp, type Holder } from '../helpers/oauth.ts';
import { ROOT } from '../helpers/process.ts';
import { advance, runningServer } from '../helpers/servers.ts';

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** `node bin/svc.js ...` as a person runs it, with only the environment given (no SERVICE_BASE_URL unless given). */
function svc(args: string[], env: Record<string, string>, onStdout?: (text: string) => void): Promise<Run> {
  const child = spawn(process.execPath, ['bin/svc.js', ...args], {
    cwd: ROOT,
    env: { PATH: process.env.PATH!, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => {
    stdout += d;
    onStdout?.(stdout);
  });
  child.stderr.on('data', (d) => (stderr += d));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
}

const mode = (p: string) => (fs.statSync(p).mode & 0o777).toString(8);

describe.skipIf(!hasChromium)('svc login / api / logout against a running server, approved in Chromium', () => {
  let app: TestApp;
  let holder: Holder;
  let browser: Browser;
  let serverId: string;
  let env: Record<string, string>;
  let file: string;
  const credentials = () => JSON.parse(fs.readFileSync(file, 'utf8'));

  beforeAll(async () => {
    ensureDashboardBuilt();
    app = await startOAuthApp();
    holder = await accountHolder(app);
    serverId = await runningServer(app, { accountId: holder.accountId, key: '', keyId: '' }, { label: 'cli-box' });
    browser = await launchBrowser();
    const home = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-cli-home-'));
    env = { HOME: home, XDG_CONFIG_HOME: path.join(home, 'xdg') };
    file = path.join(home, 'xdg', 'svc', 'credentials.json');
  });
  afterAll(async () => {
    await browser?.close();
    await app?.stop();
    if (env) fs.rmSync(env.HOME, { recursive: true, force: true });
  });

  it('login prints the code and the URL, the person approves in the browser, the tokens land in a 0600 file', async () => {
    let printed: (value: { code: string; link: string }) => void;
    const shown = new Promise<{ code: string; link: string }>((resolve) => (printed = resolve));
    const login = svc(['login', '--url', app.url], env, (out) => {
      const code = /one-time code: ([A-Z0-9]{4}-[A-Z0-9]{4})/.exec(out)?.[1];
      const link = /(http\S+\/oauth\/device\?user_code=\S+)/.exec(out)?.[1];
      if (code && link) printed({ code, link });
    });
    const { code, link } = await Promise.race([
      shown,
      login.then((r) => Promise.reject(new Error(`login ended early: ${r.stderr}`))),
    ]);
    expect(link).toBe(`${app.url}/oauth/device?user_code=${code}`);

    const { page } = browser;
    const opened = new URL(link);
    await browserSignIn(page, app.url, holder.email, holder.password, `${opened.pathname}${opened.search}`);
    const request = page.getByTestId('device-request');
    await request.waitFor();
    await expect(request.textContent()).resolves.toContain('svc command-line interface');
    await request.getByRole('button', { name: 'Approve' }).click();
    await page.getByTestId('device-done').waitFor();

    const done = await login;
    expect(done.code, done.stderr).toBe(0);
    expect(done.stdout).toContain(`Open ${app.url}/oauth/device in a browser`);
    expect(done.stdout).toContain(`Logged in to ${app.url}`);
    expect(mode(file)).toBe('600');
    expect(mode(path.dirname(file))).toBe('700');
    expect(credentials()).toMatchObject({
      url: app.url,
      clientId: 'svc-cli',
      accessToken: expect.stringMatching(/^svc_at_/),
      refreshToken: expect.stringMatching(/^svc_rt_/),
    });
  }, 120_000);

  it("api GET /servers prints the account's servers; POST sends a JSON body; a non-2xx prints the error object and exits 1", async () => {
    const list = await svc(['api', 'GET', '/servers'], env);
    expect(list.code, list.stderr).toBe(0);
    expect(JSON.parse(list.stdout).data.map((s: { id: string }) => s.id)).toEqual([serverId]);

    const ticket = await svc(
      [
        'api',
        'POST',
        '/tickets',
        JSON.stringify({ subject: 'Sent from svc', message: 'Hello from the command line.' }),
      ],
      env,
    );
    expect(ticket.code, ticket.stderr).toBe(0);
    expect(JSON.parse(ticket.stdout)).toMatchObject({ subject: 'Sent from svc', status: 'open' });

    const missing = await svc(['api', 'GET', '/v1/servers/srv_0000000000000000000000000a'], env);
    expect(missing.code).toBe(1);
    expect(JSON.parse(missing.stdout)).toMatchObject({ statusCode: 404, error: 'Not Found' });
    expect(missing.stderr).toContain('answered 404');

    const bad = await svc(['api', 'POST', '/tickets', '{not json'], env);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('must be JSON');
  });

  it('refreshes an access token the server expired (simulated clock past its hour), and one whose stored expiry passed', async () => {
    const before = credentials();
    await advance(app, 3601);
    expect((await app.call('GET', '/v1/account', { key: before.accessToken })).status).toBe(401);
    const list = await svc(['api', 'GET', '/servers'], env);
    expect(list.code, list.stderr).toBe(0);
    expect(JSON.parse(list.stdout).data).toHaveLength(1);
    const after = credentials();
    expect(after.accessToken).not.toBe(before.accessToken);
    expect(after.refreshToken).not.toBe(before.refreshToken);
    expect(mode(file)).toBe('600');

    // The stored expiry has passed: refreshed before the call.
    fs.writeFileSync(file, JSON.stringify({ ...after, expiresAt: new Date(Date.now() - 1000).toISOString() }));
    const account = await svc(['api', 'GET', '/account'], env);
    expect(account.code, account.stderr).toBe(0);
    expect(JSON.parse(account.stdout).id).toBe(holder.accountId);
    expect(credentials().refreshToken).not.toBe(after.refreshToken);
  });

  it('two commands that both need a refresh use the refresh token once (a reused one would revoke the grant)', async () => {
    await advance(app, 3601);
    const [a, b] = await Promise.all([svc(['api', 'GET', '/account'], env), svc(['api', 'GET', '/servers'], env)]);
    expect(a.code, a.stderr).toBe(0);
    expect(b.code, b.stderr).toBe(0);
    expect((await svc(['api', 'GET', '/account'], env)).code).toBe(0);
  });

  it('logout revokes the tokens at the server and deletes the file', async () => {
    const last = credentials();
    expect((await app.call('GET', '/v1/account', { key: last.accessToken })).status).toBe(200);
    const out = await svc(['logout'], env);
    expect(out.code, out.stderr).toBe(0);
    expect(fs.existsSync(file)).toBe(false);
    expect((await app.call('GET', '/v1/account', { key: last.accessToken })).status).toBe(401);
    const refresh = await oauthPost(app, '/oauth/token', {
      grant_type: 'refresh_token',
      refresh_token: last.refreshToken,
      client_id: 'svc-cli',
    });
    expect(refresh.body.error).toBe('invalid_grant');
    const after = await svc(['api', 'GET', '/servers'], env);
    expect(after.code).toBe(1);
    expect(after.stderr).toContain('Not logged in');
  });
});

describe('svc login and logout against a scripted authorization server: interval, slow_down, the default config directory, RFC 7009', () => {
  it('waits the interval, adds 5 s after slow_down, stores the tokens in ~/.config/svc (0700, file 0600); logout revokes both', async () => {
    const seen: { path: string; at: number; form: URLSearchParams }[] = [];
    let base = '';
    const fake = http.createServer((req, res) => {
      let body = '';
      req.on('data', (d) => (body += d));
      req.on('end', () => {
        seen.push({ path: req.url!, at: Date.now(), form: new URLSearchParams(body) });
        const json = (status: number, value: unknown) =>
          res.writeHead(status, { 'Content-Type': 'application/json' }).end(JSON.stringify(value));
        if (req.url === '/.well-known/oauth-authorization-server') {
          return json(200, {
            issuer: base,
            device_authorization_endpoint: `${base}/device`,
            token_endpoint: `${base}/token`,
            revocation_endpoint: `${base}/revoke`,
          });
        }
        if (req.url === '/device')
          return json(200, {
            device_code: 'dc-1',
            user_code: 'WXYZ-3479',
            verification_uri: `${base}/activate`,
            expires_in: 120,
            interval: 1,
          });
        if (req.url === '/revoke') return json(200, {});
        const polls = seen.filter((s) => s.path === '/token').length;
        if (polls === 1) return json(400, { error: 'slow_down' });
        return json(200, {
          access_token: 'at-1',
          token_type: 'Bearer',
          expires_in: 3600,
          refresh_token: 'rt-1',
          scope: 'account:read',
        });
      });
    });
    await new Promise<void>((resolve) => fake.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(fake.address() as AddressInfo).port}`;
    const home = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-cli-home-'));
    try {
      const run = await svc(['login'], { HOME: home, SERVICE_BASE_URL: base });
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout).toContain('one-time code: WXYZ-3479');
      expect(run.stdout).toContain(`Open ${base}/activate in a browser`);

      const device = seen.find((s) => s.path === '/device')!;
      const polls = seen.filter((s) => s.path === '/token');
      expect(device.form.get('client_id')).toBe('svc-cli');
      expect(polls).toHaveLength(2);
      expect(polls[0].form.get('grant_type')).toBe('urn:ietf:params:oauth:grant-type:device_code');
      expect(polls[0].form.get('device_code')).toBe('dc-1');
      // Lower bounds only: the first poll after the 1 s interval, the next after 1 + 5 s.
      expect(polls[0].at - device.at).toBeGreaterThanOrEqual(900);
      expect(polls[1].at - polls[0].at).toBeGreaterThanOrEqual(5900);

      const dir = path.join(home, '.config', 'svc');
      expect(mode(dir)).toBe('700');
      expect(mode(path.join(dir, 'credentials.json'))).toBe('600');
      expect(JSON.parse(fs.readFileSync(path.join(dir, 'credentials.json'), 'utf8'))).toMatchObject({
        url: base,
        accessToken: 'at-1',
        refreshToken: 'rt-1',
        tokenEndpoint: `${base}/token`,
        revocationEndpoint: `${base}/revoke`,
      });

      // Logout sends RFC 7009 requests for both tokens, the refresh token (and so its grant) first.
      const out = await svc(['logout'], { HOME: home });
      expect(out.code, out.stderr).toBe(0);
      const revocations = seen.filter((s) => s.path === '/revoke').map((s) => Object.fromEntries(s.form));
      expect(revocations).toEqual([
        { token: 'rt-1', client_id: 'svc-cli' },
        { token: 'at-1', client_id: 'svc-cli' },
      ]);
      expect(fs.existsSync(path.join(dir, 'credentials.json'))).toBe(false);
    } finally {
      fake.close();
      fs.rmSync(home, { recursive: true, force: true });
    }
  }, 30_000);
});
