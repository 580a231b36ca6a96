import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type Customer, type Json, type TestApp } from '../helpers/app.ts';
import { activeHosting, MANAGE, siteDir, upload } from '../helpers/hosting.ts';

let app: TestApp;
let work: string;
beforeAll(async () => {
  app = await startTestApp({ hostingAllowLocalGit: true });
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-quota-'));
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

/** Every file and directory under the site's home and databases, with sizes: what must not change. */
function snapshot(id: string): string[] {
  const out: string[] = [];
  for (const part of ['home', 'mysql'] as const) {
    const root = siteDir(app, id, part);
    for (const rel of fs.readdirSync(root, { recursive: true }) as string[]) {
      const st = fs.lstatSync(path.join(root, rel));
      out.push(`${part}/${rel}:${st.isDirectory() ? 'dir' : st.size}`);
    }
  }
  return out.sort();
}

async function stats(c: Customer, id: string) {
  return (await app.call('GET', `/v1/hosting/${id}/stats`, { key: c.key })).body as {
    disk: { usedBytes: number; quotaBytes: number };
    inodes: { used: number; quota: number };
  };
}

function expectQuotaRefusal(res: { status: number; body: Json; text: string }) {
  expect(res.status, res.text).toBe(409);
  expect(res.body).toMatchObject({
    statusCode: 409,
    error: 'Conflict',
    code: 'QUOTA_EXCEEDED',
    message: expect.stringMatching(/quota|allows/),
  });
}

const put = (c: Customer, id: string, p: string, content: string) =>
  app.call('PUT', `/v1/hosting/${id}/files`, { key: c.key, body: { path: p, content } });

describe('hosting disk and inode quotas', () => {
  it('a file save that would pass the disk quota is refused (409 QUOTA_EXCEEDED) and writes nothing; replacing or shrinking a file within it works', async () => {
    await setQuota(1, 1000);
    const c = await app.customer({ scopes: MANAGE });
    const id = await activeHosting(app, c);
    expect((await put(c, id, '/public_html/a.bin', 'a'.repeat(600_000))).status).toBe(200);
    const before = snapshot(id);
    expectQuotaRefusal(await put(c, id, '/public_html/b.bin', 'b'.repeat(600_000)));
    expect(snapshot(id)).toEqual(before);
    expect(fs.readdirSync(siteDir(app, id, 'tmp'))).toEqual([]);
    // Replacing a.bin counts only the difference.
    expect((await put(c, id, '/public_html/a.bin', 'c'.repeat(900_000))).status).toBe(200);
    expect((await stats(c, id)).disk).toMatchObject({ quotaBytes: MB });
  });

  it('an upload that would pass the disk quota is refused after the body, and nothing is left behind', async () => {
    await setQuota(1, 1000);
    const c = await app.customer({ scopes: MANAGE });
    const id = await activeHosting(app, c);
    const before = snapshot(id);
    const res = await upload(app, c.key, id, { path: '/public_html', name: 'big.bin', data: new Uint8Array(MB + 1) });
    expectQuotaRefusal(res);
    expect(snapshot(id)).toEqual(before);
    expect(fs.readdirSync(siteDir(app, id, 'tmp'))).toEqual([]);
    expect(
      (await upload(app, c.key, id, { path: '/public_html', name: 'small.bin', data: new Uint8Array(1000) })).status,
    ).toBe(200);
  });

  it('mkdir past the inode quota is refused and creates nothing; deleting still works over quota', async () => {
    await setQuota(10, 100_000);
    const c = await app.customer({ scopes: MANAGE });
    const id = await activeHosting(app, c);
    const used = (await stats(c, id)).inodes.used;
    await setQuota(10, used + 1);
    expect(
      (await app.call('POST', `/v1/hosting/${id}/files/mkdir`, { key: c.key, body: { path: '/public_html/one' } }))
        .status,
    ).toBe(200);
    const before = snapshot(id);
    expectQuotaRefusal(
      await app.call('POST', `/v1/hosting/${id}/files/mkdir`, { key: c.key, body: { path: '/public_html/two' } }),
    );
    expectQuotaRefusal(await put(c, id, '/public_html/new.txt', 'x'));
    expect(snapshot(id)).toEqual(before);
    await setQuota(10, used - 1);
    expect((await app.call('DELETE', `/v1/hosting/${id}/files?path=/public_html/one`, { key: c.key })).status).toBe(
      200,
    );
  });

  it('a backup restore that would pass the quota is refused, and the site stays as it is', async () => {
    await setQuota(10, 100_000);
    const c = await app.customer({ scopes: MANAGE });
    const id = await activeHosting(app, c);
    for (let i = 0; i < 5; i++) expect((await put(c, id, `/public_html/page${i}.html`, `page ${i}`)).status).toBe(200);
    const backup = await app.call('POST', `/v1/hosting/${id}/backups`, { key: c.key });
    expect(backup.status, backup.text).toBe(200);
    for (let i = 0; i < 5; i++)
      expect(
        (await app.call('DELETE', `/v1/hosting/${id}/files?path=/public_html/page${i}.html`, { key: c.key })).status,
      ).toBe(200);
    expect((await put(c, id, '/public_html/now.html', 'current')).status).toBe(200);
    await setQuota(10, (await stats(c, id)).inodes.used + 2);
    const before = snapshot(id);
    expectQuotaRefusal(await app.call('POST', `/v1/hosting/${id}/backups/${backup.body.id}/restore`, { key: c.key }));
    expect(snapshot(id)).toEqual(before);
    expect(fs.readdirSync(siteDir(app, id, 'tmp'))).toEqual([]);
  });

  it('a git deploy whose files would pass the disk quota is refused; nothing is published and the deploy is not connected', async () => {
    await setQuota(1, 1000);
    const c = await app.customer({ scopes: MANAGE });
    const id = await activeHosting(app, c);
    const bare = path.join(work, 'big.git');
    const clone = path.join(work, 'big');
    git(work, 'init', '--bare', bare);
    git(work, 'clone', bare, clone);
    fs.writeFileSync(path.join(clone, 'index.html'), '<h1>hi</h1>');
    fs.writeFileSync(path.join(clone, 'video.bin'), Buffer.alloc(MB + 1, 1));
    git(clone, 'add', '.');
    git(clone, 'commit', '-m', 'big');
    git(clone, 'push', 'origin', 'HEAD:main');
    const before = snapshot(id);
    expectQuotaRefusal(
      await app.call('POST', `/v1/hosting/${id}/git/deploy`, { key: c.key, body: { repo_url: bare, branch: 'main' } }),
    );
    expect(snapshot(id)).toEqual(before);
    expect((await app.call('GET', `/v1/hosting/${id}/git`, { key: c.key })).body).toMatchObject({ connected: false });
  });
});

function git(cwd: string, ...args: string[]) {
  return execFileSync(
    'git',
    ['-c', 'user.name=Test', '-c', 'user.email=test@example.com', '-c', 'init.defaultBranch=main', ...args],
    { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] },
  ).trim();
}
