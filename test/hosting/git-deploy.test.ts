import { createHmac } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkRepoUrl } from '../../src/modules/hosting/git.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { git, pushHeaders } from '../helpers/git.ts';
import { activeHosting, MANAGE, siteDir } from '../helpers/hosting.ts';
import { expectError } from '../helpers/servers.ts';

let app: TestApp;
/** Where the test's git repositories live. */
let work: string;
beforeAll(async () => {
  app = await startTestApp({ hostingAllowLocalGit: true });
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-git-'));
});
afterAll(async () => {
  await app?.stop();
  fs.rmSync(work, { recursive: true, force: true });
});

describe('git deploy', () => {
  it('repo_url accepts SSH addresses (and local paths only when allowed); option injection is refused', () => {
    for (const ok of [
      'git@github.com:owner/repo.git',
      'ssh://git@example.com/owner/repo.git',
      'ssh://git@example.com:2222/srv/repo',
      'deploy@git.example.org:site',
    ]) {
      expect(checkRepoUrl(ok, false)).toBe(ok);
    }
    for (const bad of [
      'https://github.com/owner/repo.git',
      'http://x/y',
      '-uexploit',
      '--upload-pack=touch /tmp/x',
      'git@-oProxyCommand=x:y',
      'ext::sh -c touch% /tmp/pwned',
      'file:///srv/repo',
      '/srv/repo',
      'ssh://-oProxyCommand=x/y',
      'git@host:repo\nx',
    ]) {
      expect(() => checkRepoUrl(bad, false), bad).toThrow(/repo_url/);
    }
    expect(checkRepoUrl('/srv/repo.git', true)).toBe('/srv/repo.git');
    expect(checkRepoUrl('file:///srv/repo.git', true)).toBe('file:///srv/repo.git');
  });

  it('deploy key, deploy from a local repository with the real git, pull, push-to-deploy webhook, disconnect', async () => {
    const c = await app.customer({ scopes: MANAGE });
    const id = await activeHosting(app, c);
    const home = siteDir(app, id);

    // A bare repository with one commit on main.
    const bare = path.join(work, 'site.git');
    const clone = path.join(work, 'site');
    git(work, 'init', '--bare', bare);
    git(work, 'clone', bare, clone);
    fs.writeFileSync(path.join(clone, 'index.html'), '<h1>from git v1</h1>');
    fs.mkdirSync(path.join(clone, 'css'));
    fs.writeFileSync(path.join(clone, 'css/site.css'), 'h1{}');
    fs.writeFileSync(path.join(clone, 'old.txt'), 'to be removed');
    git(clone, 'add', '.');
    git(clone, 'commit', '-m', 'first');
    git(clone, 'push', 'origin', 'HEAD:main');
    const first = git(clone, 'rev-parse', 'HEAD');

    expect((await app.call('GET', `/v1/hosting/${id}/git`, { key: c.key })).body).toMatchObject({
      connected: false,
      status: 'not_connected',
      repo_url: null,
      commit: null,
    });

    const key = await app.call('GET', `/v1/hosting/${id}/git/deploy-key`, { key: c.key });
    expect(key.body).toMatchObject({
      type: 'ssh-ed25519',
      publicKey: expect.stringMatching(/^ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI[A-Za-z0-9+/]{43} deploy@hst_/),
      fingerprint: expect.stringMatching(/^SHA256:[A-Za-z0-9+/]{43}$/),
    });
    expect(key.text).not.toMatch(/PRIVATE/);
    const privateKey = path.join(siteDir(app, id, 'private'), 'deploy_key');
    expect(fs.statSync(privateKey).mode & 0o777).toBe(0o600);
    expect(execFileSync('ssh-keygen', ['-y', '-f', privateKey], { encoding: 'utf8' }).trim()).toBe(key.body.publicKey);
    expect(execFileSync('ssh-keygen', ['-l', '-f', privateKey], { encoding: 'utf8' })).toContain(key.body.fingerprint);
    expect((await app.call('GET', `/v1/hosting/${id}/git/deploy-key`, { key: c.key })).body).toEqual(key.body);

    expectError(
      await app.call('POST', `/v1/hosting/${id}/git/deploy`, {
        key: c.key,
        body: { repo_url: 'https://github.com/a/b.git' },
      }),
      400,
      /repo_url must be an SSH repository address/,
    );
    expectError(
      await app.call('POST', `/v1/hosting/${id}/git/deploy`, {
        key: c.key,
        body: { repo_url: bare, branch: '--upload-pack=touch' },
      }),
      400,
      /branch/,
    );
    expectError(
      await app.call('POST', `/v1/hosting/${id}/git/deploy`, {
        key: c.key,
        body: { repo_url: bare, subdir: '../../private' },
      }),
      400,
      /subdir/,
    );
    expectError(
      await app.call('POST', `/v1/hosting/${id}/git/deploy`, { key: c.key, body: { repo_url: bare, branch: 'nope' } }),
      400,
      /git clone failed/,
    );
    expectError(await app.call('POST', `/v1/hosting/${id}/git/pull`, { key: c.key }), 409, /not connected/);
    expectError(await app.call('POST', `/v1/hosting/${id}/git/webhook`, { key: c.key }), 409, /not connected/);
    expect((await app.call('GET', `/v1/hosting/${id}/git`, { key: c.key })).body.connected).toBe(false);

    const deployed = await app.call('POST', `/v1/hosting/${id}/git/deploy`, {
      key: c.key,
      body: { repo_url: bare, branch: 'main', subdir: 'app' },
    });
    expect(deployed.status, deployed.text).toBe(200);
    expect(deployed.body).toMatchObject({
      connected: true,
      repo_url: bare,
      branch: 'main',
      subdir: 'app',
      status: 'deployed',
      commit: { sha: first, message: 'first' },
      lastError: null,
      webhookEnabled: false,
    });
    expect(fs.readFileSync(path.join(home, 'public_html/app/index.html'), 'utf8')).toBe('<h1>from git v1</h1>');
    expect(fs.readFileSync(path.join(home, 'public_html/app/css/site.css'), 'utf8')).toBe('h1{}');
    expect(fs.existsSync(path.join(home, 'public_html/app/.git'))).toBe(false);
    expect(fs.readFileSync(path.join(home, 'public_html/index.html'), 'utf8')).toMatch(/hosted here/);

    // A new commit: one file changed, one removed.
    fs.writeFileSync(path.join(clone, 'index.html'), '<h1>from git v2</h1>');
    git(clone, 'rm', '-q', 'old.txt');
    git(clone, 'commit', '-am', 'second');
    git(clone, 'push', 'origin', 'HEAD:main');
    const pulled = await app.call('POST', `/v1/hosting/${id}/git/pull`, { key: c.key });
    expect(pulled.status, pulled.text).toBe(200);
    expect(pulled.body.commit).toEqual({ sha: git(clone, 'rev-parse', 'HEAD'), message: 'second' });
    expect(fs.readFileSync(path.join(home, 'public_html/app/index.html'), 'utf8')).toBe('<h1>from git v2</h1>');
    expect(fs.existsSync(path.join(home, 'public_html/app/old.txt'))).toBe(false);

    expect((await app.call('GET', `/v1/hosting/${id}/git/webhook`, { key: c.key })).body).toEqual({
      enabled: false,
      url: null,
      secret: null,
    });
    const hook = await app.call('POST', `/v1/hosting/${id}/git/webhook`, { key: c.key });
    expect(hook.body).toEqual({
      enabled: true,
      url: expect.stringContaining(id),
      secret: expect.stringMatching(/^gdh_/),
    });
    expect((await app.call('GET', `/v1/hosting/${id}/git/webhook`, { key: c.key })).body).toEqual(hook.body);
    const stored = await app.running.app.prisma.hostingGitDeploy.findUniqueOrThrow({ where: { hostingId: id } });
    expect(JSON.stringify(stored)).not.toContain(hook.body.secret);
    expect((await app.call('GET', `/v1/hosting/${id}/git`, { key: c.key })).body.webhookEnabled).toBe(true);

    // Push-to-deploy: the git host calls the hook URL after a push; the site pulls the new commit.
    fs.writeFileSync(path.join(clone, 'index.html'), '<h1>from git v3</h1>');
    git(clone, 'commit', '-am', 'third');
    git(clone, 'push', 'origin', 'HEAD:main');
    const hookPath = new URL(hook.body.url).pathname;
    expect(hookPath).toBe(`/hooks/git/${id}`);
    const payload = JSON.stringify({ ref: 'refs/heads/main', after: git(clone, 'rev-parse', 'HEAD') });
    const now = () => Math.floor(app.running.app.clock.now().getTime() / 1000);
    const signed = pushHeaders(hook.body.secret, payload, { t: now() });
    const forged = await app.call('POST', hookPath, {
      raw: payload,
      headers: { ...signed, 'X-Service-Signature': `t=${now()},v1=${'0'.repeat(64)}` },
    });
    expectError(forged, 401, /signature does not match/);
    expectError(
      await app.call('POST', hookPath, { raw: payload, headers: { 'Content-Type': 'application/json' } }),
      401,
    );
    expect(fs.readFileSync(path.join(home, 'public_html/app/index.html'), 'utf8')).toBe('<h1>from git v2</h1>');
    const pushed = await app.call('POST', hookPath, { raw: payload, headers: signed });
    expect(pushed.status, pushed.text).toBe(200);
    expect(pushed.body.commit).toEqual({ sha: git(clone, 'rev-parse', 'HEAD'), message: 'third' });
    expect(fs.readFileSync(path.join(home, 'public_html/app/index.html'), 'utf8')).toBe('<h1>from git v3</h1>');
    // GitHub's and GitLab's unsigned-time forms are replayable: refused, saying what to send.
    const secret = hook.body.secret;
    for (const headers of [
      { 'X-Hub-Signature-256': `sha256=${createHmac('sha256', secret).update(payload).digest('hex')}` },
      { 'X-Gitlab-Token': secret },
    ] as Record<string, string>[])
      expectError(await app.call('POST', hookPath, { raw: payload, headers }), 401, /X-Service-Signature/);
    expectError(
      await app.call('POST', '/hooks/git/hst_doesnotexist', {
        raw: payload,
        headers: pushHeaders(secret, payload, { t: now() }),
      }),
      404,
    );
    expectError(await app.call('GET', hookPath), 405);

    expect((await app.call('DELETE', `/v1/hosting/${id}/git/webhook`, { key: c.key })).body).toEqual({
      enabled: false,
      url: null,
      secret: null,
    });
    // Disabled: the old secret no longer deploys anything.
    expectError(
      await app.call('POST', hookPath, { raw: payload, headers: pushHeaders(secret, payload, { t: now() }) }),
      404,
    );

    // A failing pull is recorded.
    fs.renameSync(bare, `${bare}.moved`);
    expectError(await app.call('POST', `/v1/hosting/${id}/git/pull`, { key: c.key }), 400, /git fetch failed/);
    expect((await app.call('GET', `/v1/hosting/${id}/git`, { key: c.key })).body).toMatchObject({
      status: 'failed',
      lastError: expect.stringMatching(/git fetch failed/),
    });
    fs.renameSync(`${bare}.moved`, bare);

    const off = await app.call('DELETE', `/v1/hosting/${id}/git`, { key: c.key });
    expect(off.body).toMatchObject({ connected: false, status: 'not_connected' });
    expect(fs.existsSync(path.join(siteDir(app, id, 'private'), 'repo'))).toBe(false);
    expect(fs.existsSync(path.join(home, 'public_html/app/index.html'))).toBe(true);
  });
});
