import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type Customer, type TestApp } from '../helpers/app.ts';
import { git, pushHeaders } from '../helpers/git.ts';
import { activeHosting, MANAGE, siteDir } from '../helpers/hosting.ts';
import { ROOT } from '../helpers/process.ts';
import { advance, expectError } from '../helpers/servers.ts';
import { pushHookExample } from '../../src/modules/hosting/push-hook-scheme.ts';

// A captured push-to-deploy request is worth one deploy: the signature covers a timestamp and a
// delivery id, the timestamp must be within 5 minutes of the app clock, and each id is taken once.

let app: TestApp;
let work: string;
beforeAll(async () => {
  app = await startTestApp({ hostingAllowLocalGit: true });
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-push-'));
});
afterAll(async () => {
  await app?.stop();
  fs.rmSync(work, { recursive: true, force: true });
});

const now = () => Math.floor(app.running.app.clock.now().getTime() / 1000);

interface Site {
  c: Customer;
  id: string;
  hookPath: string;
  secret: string;
  clone: string;
}

/** A hosting account deployed from a local repository, push-to-deploy on. */
async function deployedSite(name: string): Promise<Site> {
  const c = await app.customer({ scopes: MANAGE });
  const id = await activeHosting(app, c);
  const bare = path.join(work, `${name}.git`);
  const clone = path.join(work, name);
  git(work, 'init', '--bare', bare);
  git(work, 'clone', bare, clone);
  fs.writeFileSync(path.join(clone, 'index.html'), 'v1');
  git(clone, 'add', '.');
  git(clone, 'commit', '-m', 'v1');
  git(clone, 'push', 'origin', 'HEAD:main');
  const deployed = await app.call('POST', `/v1/hosting/${id}/git/deploy`, {
    key: c.key,
    body: { repo_url: bare, branch: 'main' },
  });
  expect(deployed.status, deployed.text).toBe(200);
  const hook = await app.call('POST', `/v1/hosting/${id}/git/webhook`, { key: c.key });
  expect(hook.status, hook.text).toBe(200);
  return { c, id, hookPath: new URL(hook.body.url).pathname, secret: hook.body.secret, clone };
}

function commit(site: Site, content: string): void {
  fs.writeFileSync(path.join(site.clone, 'index.html'), content);
  git(site.clone, 'commit', '-am', content);
  git(site.clone, 'push', 'origin', 'HEAD:main');
}

const published = (site: Site) => fs.readFileSync(path.join(siteDir(app, site.id), 'public_html/index.html'), 'utf8');

/** How many pulls the account's events record. */
async function pulls(site: Site): Promise<number> {
  const rows = await app.running.app.prisma.event.findMany({
    where: { accountId: site.c.accountId, type: 'hosting.panel.changed' },
  });
  return rows.filter((r) => (r.data as { action?: string }).action === 'pulled').length;
}

const send = (site: Site, body: string, headers: Record<string, string>) =>
  app.call('POST', site.hookPath, { raw: body, headers });

describe('push-to-deploy: signed time and delivery id, once each', () => {
  it('the shell example the dashboard and the reference show (openssl, curl) deploys', async () => {
    const site = await deployedSite('example');
    commit(site, 'from the example');
    const script = pushHookExample(`${app.url}${site.hookPath}`, site.secret);
    // Asynchronously: the app answers from this very process.
    const { stdout } = await promisify(execFile)('bash', ['-c', script], { timeout: 30_000 });
    const answer = JSON.parse(stdout);
    expect(answer.commit.message).toBe('from the example');
    expect(published(site)).toBe('from the example');
    const reference = fs.readFileSync(path.join(ROOT, 'docs/REFERENCE.md'), 'utf8');
    expect(reference).toContain(pushHookExample());
  });

  it('a signed push deploys; the same request again is refused 409 and deploys nothing', async () => {
    const site = await deployedSite('replay');
    commit(site, 'v2');
    const body = JSON.stringify({ ref: 'refs/heads/main' });
    const headers = pushHeaders(site.secret, body, { t: now() });
    const first = await send(site, body, headers);
    expect(first.status, first.text).toBe(200);
    expect(first.body.commit.message).toBe('v2');
    expect(published(site)).toBe('v2');
    expect(await pulls(site)).toBe(1);

    // The captured request, replayed after a new push: refused, the new commit not deployed.
    commit(site, 'v3');
    const replay = await send(site, body, headers);
    expectError(replay, 409, /already received/);
    expect(replay.body.code).toBe('DELIVERY_REPLAYED');
    expect(published(site)).toBe('v2');
    expect(await pulls(site)).toBe(1);
  });

  it('copies of one delivery sent at once deploy once', async () => {
    const site = await deployedSite('race');
    commit(site, 'raced');
    const body = '{}';
    const headers = pushHeaders(site.secret, body, { t: now() });
    const answers = await Promise.all(Array.from({ length: 6 }, () => send(site, body, headers)));
    expect(answers.map((a) => a.status).sort()).toEqual([200, 409, 409, 409, 409, 409]);
    expect(await pulls(site)).toBe(1);
  });

  it('a stale or future timestamp, a tampered delivery id or body, or no delivery id is refused and deploys nothing', async () => {
    const site = await deployedSite('tamper');
    commit(site, 'v2');
    const body = JSON.stringify({ ref: 'refs/heads/main' });
    // Well past the window either way: a request reaches the server some time after `now()` was
    // read, and under load a second is not always enough (a future time would fall inside it).
    for (const t of [now() - 330, now() + 330]) {
      const stale = await send(site, body, pushHeaders(site.secret, body, { t }));
      expectError(stale, 401, /more than 300 seconds/);
      expect(stale.body.code).toBe('SIGNATURE_EXPIRED');
    }

    const signed = pushHeaders(site.secret, body, { t: now(), delivery: 'delivery-1' });
    // Another id under the captured signature: the id is inside the MAC.
    expectError(await send(site, body, { ...signed, 'X-Service-Delivery': 'delivery-2' }), 401, /does not match/);
    expectError(await send(site, '{"ref":"x"}', signed), 401, /does not match/);
    const { 'X-Service-Delivery': _omitted, ...noId } = signed;
    expectError(await send(site, body, noId), 401, /X-Service-Delivery/);
    expectError(await send(site, body, { ...signed, 'X-Service-Delivery': 'has.dot' }), 401, /X-Service-Delivery/);
    expect(published(site)).toBe('v1');
    expect(await pulls(site)).toBe(0);

    // The untampered request still deploys once; past the window it is stale, and its id is swept.
    expect((await send(site, body, signed)).status).toBe(200);
    expect(published(site)).toBe('v2');
    await advance(app, 301);
    expect((await send(site, body, signed)).body.code).toBe('SIGNATURE_EXPIRED');
    const fresh = pushHeaders(site.secret, body, { t: now() });
    commit(site, 'v3');
    expect((await send(site, body, fresh)).status).toBe(200);
    const kept = await app.running.app.prisma.hostingHookDelivery.findMany({ where: { hostingId: site.id } });
    expect(kept.map((d) => d.deliveryId)).toEqual([fresh['X-Service-Delivery']]);
    expect(await pulls(site)).toBe(2);
  });
});
