import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type Customer, type TestApp } from '../helpers/app.ts';
import { activeHosting, MANAGE, siteDir } from '../helpers/hosting.ts';
import { advance } from '../helpers/servers.ts';

// The far end of a browser-SSH session's URL: `/ssh-terminal/<session>#token=…` serves a page, and
// the token (sent by its script in X-Terminal-Token) runs lines of a simulated shell confined to
// that hosting account's home, until the session is stopped, replaced or expires.

let app: TestApp;
let c: Customer;
let id: string;
let otherId: string;

beforeAll(async () => {
  app = await startTestApp();
  c = await app.customer({ scopes: MANAGE });
  id = await activeHosting(app, c);
  const stranger = await app.customer({ scopes: MANAGE });
  otherId = await activeHosting(app, stranger);
  // A file of another account the shell must never reach.
  fs.writeFileSync(path.join(siteDir(app, otherId), 'public_html/secret.txt'), 'OTHER-ACCOUNT-SECRET');
  expect((await app.call('POST', `/v1/hosting/${id}/ssh-terminal/access`, { key: c.key })).status).toBe(200);
});
afterAll(() => app?.stop());

interface Launch {
  sessionId: string;
  url: string;
  token: string;
}

async function launch(): Promise<Launch> {
  const r = await app.call('POST', `/v1/hosting/${id}/ssh-terminal/launch`, { key: c.key });
  expect(r.status, r.text).toBe(200);
  return r.body;
}

/** One call of the terminal page's script. */
async function terminal(s: Pick<Launch, 'sessionId' | 'token'>, what: 'hello' | 'line', body: object = {}) {
  const res = await fetch(`${app.url}/ssh-terminal/${s.sessionId}/${what}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'X-Terminal-Token': s.token },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
}

const line = async (s: Launch, text: string, cwd = '/public_html') => {
  const r = await terminal(s, 'line', { line: text, cwd });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body as { output: string; cwd: string; exit?: true };
};

describe('the browser-SSH terminal', () => {
  it('the URL opens a page that carries no secret; its script and the page are served with the CSP', async () => {
    const s = await launch();
    const url = new URL(s.url);
    expect(url.pathname).toBe(`/ssh-terminal/${s.sessionId}`);
    expect(url.hash).toBe(`#token=${s.token}`);
    const page = await fetch(`${app.url}${url.pathname}`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/text\/html/);
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
    const html = await page.text();
    expect(html).toContain('<script src="/ssh-terminal/terminal.js">');
    expect(html).not.toContain(s.token);
    const script = await fetch(`${app.url}/ssh-terminal/terminal.js`);
    expect(script.status).toBe(200);
    expect(await script.text()).toContain('X-Terminal-Token');
  });

  it('runs commands in the account’s home: ls, cd, cat, mkdir, touch, rm, whoami', async () => {
    const s = await launch();
    const hello = await terminal(s, 'hello');
    expect(hello.status).toBe(200);
    expect(hello.body).toMatchObject({ sessionId: s.sessionId, cwd: '/public_html' });
    expect(await line(s, 'ls')).toEqual({ output: 'index.html', cwd: '/public_html', expiresAt: expect.any(String) });
    expect((await line(s, 'cat index.html')).output).toContain('is hosted here');
    expect((await line(s, 'ls -l')).output).toMatch(/^-rw-r--r-- +\d+ +\d{4}-\d\d-\d\d \d\d:\d\d +index\.html$/);
    expect((await line(s, 'cd ..')).cwd).toBe('/');
    expect((await line(s, 'ls', '/')).output.split('\n')).toEqual(expect.arrayContaining(['public_html/', 'logs/']));
    expect((await line(s, 'whoami')).output).toBe(hello.body.user);
    await line(s, 'mkdir "new dir"');
    await line(s, 'touch "new dir/a.txt"');
    expect(fs.existsSync(path.join(siteDir(app, id), 'public_html/new dir/a.txt'))).toBe(true);
    expect((await line(s, 'rm "new dir"')).output).toMatch(/^rm: .*not empty|recursive/i);
    await line(s, 'rm -r "new dir"');
    expect(fs.existsSync(path.join(siteDir(app, id), 'public_html/new dir'))).toBe(false);
    expect((await line(s, 'frobnicate')).output).toBe('frobnicate: command not found (type help)');
    expect((await line(s, 'help')).output).toContain('ls [-l] [dir]');
  });

  it('stays inside the account: .. stops at its home, absolute paths are inside it, other accounts unreachable', async () => {
    const s = await launch();
    expect((await line(s, 'cd ../../../..')).cwd).toBe('/');
    expect((await line(s, 'cat /etc/passwd')).output).toMatch(/^cat: .*does not exist/);
    expect((await line(s, `cat ../../../${otherId}/home/public_html/secret.txt`)).output).toMatch(/does not exist/);
    // A symlink planted in the site that points out of it is refused, not followed.
    fs.symlinkSync(path.join(siteDir(app, otherId), 'public_html'), path.join(siteDir(app, id), 'public_html/out'));
    const followed = await line(s, 'cat out/secret.txt');
    expect(followed.output).not.toContain('OTHER-ACCOUNT-SECRET');
    expect(followed.output).toMatch(/^cat: .*outside the account/);
    expect((await line(s, 'cd out')).cwd).toBe('/public_html');
    // A working directory sent from outside is not taken either.
    expect((await line(s, 'pwd', '/../..')).output).toBe('/');
    fs.unlinkSync(path.join(siteDir(app, id), 'public_html/out'));
  });

  it('the token opens only its session, and only while it is live: stop, relaunch and expiry close it', async () => {
    const first = await launch();
    // Its last character changed (to another one: a token may already end in "x").
    const altered = `${first.token.slice(0, -1)}${first.token.endsWith('x') ? 'y' : 'x'}`;
    expect((await terminal({ ...first, token: altered }, 'hello')).status).toBe(401);
    expect((await terminal({ ...first, token: '' }, 'line', { line: 'ls' })).status).toBe(401);
    const second = await launch();
    // Launching again ends the first session; a token never opens another session id.
    const replaced = await terminal(first, 'hello');
    expect(replaced.status).toBe(401);
    expect(replaced.body.message).toMatch(/not open/);
    expect((await terminal({ sessionId: first.sessionId, token: second.token }, 'hello')).status).toBe(401);
    expect((await terminal(second, 'hello')).status).toBe(200);

    const stop = await app.call('POST', `/v1/hosting/${id}/ssh-terminal/stop`, { key: c.key });
    expect(stop.body).toMatchObject({ stopped: true, sessionId: second.sessionId });
    expect((await terminal(second, 'line', { line: 'ls' })).status).toBe(401);

    const third = await launch();
    expect((await terminal(third, 'hello')).status).toBe(200);
    await advance(app, 15 * 60 + 1);
    expect((await terminal(third, 'hello')).status).toBe(401);
  });

  it('exit ends the session', async () => {
    const s = await launch();
    expect(await line(s, 'exit')).toMatchObject({ output: 'logout', exit: true });
    expect((await terminal(s, 'hello')).status).toBe(401);
    const access = await app.call('GET', `/v1/hosting/${id}/ssh-terminal/access`, { key: c.key });
    expect(access.body.session).toBeNull();
  });
});
