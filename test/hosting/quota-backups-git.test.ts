import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type Customer, type Json, type TestApp } from '../helpers/app.ts';
import { git } from '../helpers/git.ts';
import { activeHosting, MANAGE, siteDir, upload } from '../helpers/hosting.ts';

// Backup archives and the git clone are disk the site uses: they count toward the plan's quota,
// a backup that would pass it is refused, and a clone or fetch stops at it.

let app: TestApp;
let work: string;
beforeAll(async () => {
  app = await startTestApp({ hostingAllowLocalGit: true });
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-quota-git-'));
});
afterAll(async () => {
  await app?.stop();
  fs.rmSync(work, { recursive: true, force: true });
});

const MB = 1024 * 1024;

/** No API sets a plan's quotas: the test shrinks the default plan (this app's own catalogue) in the database. */
async function setQuota(diskQuotaMb: number, inodeQuota: number) {
  const prisma = app.running.app.prisma;
  const plan = await prisma.product.findUniqueOrThrow({ where: { id: 'hosting-starter' } });
  await prisma.product.update({
    where: { id: plan.id },
    data: { details: { ...(plan.details as object), diskQuotaMb, inodeQuota } },
  });
}

async function disk(c: Customer, id: string): Promise<{ usedBytes: number; quotaBytes: number }> {
  return (await app.call('GET', `/v1/hosting/${id}/stats`, { key: c.key })).body.disk;
}

function expectQuotaRefusal(res: { status: number; body: Json; text: string }, message: RegExp = /quota/) {
  expect(res.status, res.text).toBe(409);
  expect(res.body).toMatchObject({ statusCode: 409, code: 'QUOTA_EXCEEDED', message: expect.stringMatching(message) });
}

/** A bare repository with one commit on main holding `files` (name → content). */
function repository(name: string, files: Record<string, string | Buffer>): { bare: string; clone: string } {
  const bare = path.join(work, `${name}.git`);
  const clone = path.join(work, name);
  git(work, 'init', '--bare', bare);
  git(work, 'clone', bare, clone);
  commitFiles(clone, files, 'first');
  return { bare, clone };
}

function commitFiles(clone: string, files: Record<string, string | Buffer>, message: string): void {
  for (const [file, content] of Object.entries(files)) fs.writeFileSync(path.join(clone, file), content);
  git(clone, 'add', '.');
  git(clone, 'commit', '-m', message);
  git(clone, 'push', 'origin', 'HEAD:main');
}

/** The bytes of the plain files under `dir`. */
function fileBytes(dir: string): number {
  let bytes = 0;
  for (const rel of fs.readdirSync(dir, { recursive: true }) as string[]) {
    const st = fs.lstatSync(path.join(dir, rel));
    if (st.isFile()) bytes += st.size;
  }
  return bytes;
}

const privateEntries = (id: string) => fs.readdirSync(siteDir(app, id, 'private')).filter((e) => e.startsWith('repo'));

describe('backups and the git clone count toward the disk quota', () => {
  it('a backup archive counts; one that would pass the quota is refused 409 QUOTA_EXCEEDED and nothing is kept', async () => {
    await setQuota(1, 1000);
    const c = await app.customer({ scopes: MANAGE });
    const id = await activeHosting(app, c);
    // Random bytes: the archive is about as large as the site.
    const up = await upload(app, c.key, id, { path: '/public_html', name: 'photo.bin', data: randomBytes(400_000) });
    expect(up.status, up.text).toBe(200);
    const before = await disk(c, id);

    const first = await app.call('POST', `/v1/hosting/${id}/backups`, { key: c.key });
    expect(first.status, first.text).toBe(200);
    expect(first.body.sizeBytes).toBeGreaterThan(400_000);
    const withBackup = await disk(c, id);
    expect(withBackup.usedBytes).toBe(before.usedBytes + first.body.sizeBytes);

    // A second archive of the same size would pass 1 MiB.
    expectQuotaRefusal(await app.call('POST', `/v1/hosting/${id}/backups`, { key: c.key }));
    expect(fs.readdirSync(siteDir(app, id, 'backups'))).toEqual([`${first.body.id}.tar.gz`]);
    const listed = await app.call('GET', `/v1/hosting/${id}/backups`, { key: c.key });
    expect(JSON.stringify(listed.body)).toContain(first.body.id);
    expect(await disk(c, id)).toEqual(withBackup);
    expect(withBackup.usedBytes).toBeLessThanOrEqual(MB);

    // Deleting the backup gives its space back.
    expect((await app.call('DELETE', `/v1/hosting/${id}/backups/${first.body.id}`, { key: c.key })).status).toBe(200);
    expect(await disk(c, id)).toEqual(before);
  });

  it('a repository larger than what is left of the quota fails the deploy: the clone stops, nothing is kept, usage stays under quota', async () => {
    await setQuota(2, 1000);
    const c = await app.customer({ scopes: MANAGE });
    const id = await activeHosting(app, c);
    const { bare } = repository('too-big', { 'index.html': '<h1>hi</h1>', 'video.bin': randomBytes(20 * MB) });
    const before = await disk(c, id);

    // Through git's transport (file://, as over ssh; a plain path would hard-link the objects).
    const refused = await app.call('POST', `/v1/hosting/${id}/git/deploy`, {
      key: c.key,
      body: { repo_url: `file://${bare}`, branch: 'main' },
    });
    expectQuotaRefusal(refused, /does not fit in the plan's disk or inode quota/);
    expect(privateEntries(id)).toEqual([]);
    expect(fs.existsSync(path.join(siteDir(app, id), 'public_html/video.bin'))).toBe(false);
    expect(await disk(c, id)).toEqual(before);
    expect((await app.call('GET', `/v1/hosting/${id}/git`, { key: c.key })).body).toMatchObject({ connected: false });
  });

  it('the clone counts in stats, and a pull whose new commits pass the quota stops, removes the clone and marks the deploy failed', async () => {
    await setQuota(2, 1000);
    const c = await app.customer({ scopes: MANAGE });
    const id = await activeHosting(app, c);
    const { bare, clone } = repository('grows', { 'index.html': '<h1>v1</h1>' });
    const deployed = await app.call('POST', `/v1/hosting/${id}/git/deploy`, {
      key: c.key,
      body: { repo_url: bare, branch: 'main' },
    });
    expect(deployed.status, deployed.text).toBe(200);
    // The clone (its .git included) counts beside the published site.
    const withClone = await disk(c, id);
    const cloneBytes = fileBytes(path.join(siteDir(app, id, 'private'), 'repo'));
    expect(cloneBytes).toBeGreaterThan(1000);
    expect(withClone.usedBytes).toBeGreaterThan(cloneBytes);

    commitFiles(clone, { 'index.html': '<h1>v2</h1>', 'video.bin': randomBytes(3 * MB) }, 'big');
    const pulled = await app.call('POST', `/v1/hosting/${id}/git/pull`, { key: c.key });
    expectQuotaRefusal(pulled, /git (fetch|reset) was stopped.*The clone was removed/);
    expect((await app.call('GET', `/v1/hosting/${id}/git`, { key: c.key })).body).toMatchObject({
      connected: true,
      status: 'failed',
      lastError: expect.stringMatching(/quota/),
    });
    expect(privateEntries(id)).toEqual([]);
    expect(fs.readFileSync(path.join(siteDir(app, id), 'public_html/index.html'), 'utf8')).toBe('<h1>v1</h1>');
    const after = await disk(c, id);
    expect(after.usedBytes).toBeLessThanOrEqual(2 * MB);
    expect(after.usedBytes).toBe(withClone.usedBytes - cloneBytes);
  });
});
