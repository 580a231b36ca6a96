import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type Customer, type TestApp } from '../helpers/app.ts';
import { activeHosting, fetchBytes, MANAGE, siteDir, upload } from '../helpers/hosting.ts';
import { expectError } from '../helpers/servers.ts';

const UPLOAD_LIMIT = 256 * 1024;
const SECRET = 'CANARY-CONTENT-7f3a9c';
let app: TestApp;
let c: Customer;
let id: string;
let home: string;

beforeAll(async () => {
  app = await startTestApp({ hostingUploadLimitBytes: UPLOAD_LIMIT });
  c = await app.customer({ scopes: MANAGE });
  id = await activeHosting(app, c);
  home = siteDir(app, id);
});
afterAll(() => app?.stop());

/** A fresh key for the same account when a test sends many requests (120 per minute per credential). */
async function freshKey(): Promise<string> {
  const res = await app.admin('POST', `/admin/accounts/${c.accountId}/api-keys`, { scopes: MANAGE });
  return res.body.key;
}

describe('file manager', () => {
  it('list (default /public_html), mkdir, write, read, rename/move, delete (recursive for non-empty directories)', async () => {
    const k = c.key;
    const list = await app.call('GET', `/v1/hosting/${id}/files`, { key: k });
    expect(list.status, list.text).toBe(200);
    expect(list.body).toMatchObject({
      path: '/public_html',
      truncated: false,
      entries: [{ name: 'index.html', path: '/public_html/index.html', type: 'file', permissions: '0644' }],
    });
    const root = await app.call('GET', `/v1/hosting/${id}/files?path=/`, { key: k });
    expect(root.body.entries.map((e: { name: string; type: string }) => [e.name, e.type])).toEqual([
      ['logs', 'directory'],
      ['public_html', 'directory'],
    ]);

    expect(
      (await app.call('POST', `/v1/hosting/${id}/files/mkdir`, { key: k, body: { path: '/public_html/blog' } })).status,
    ).toBe(200);
    expectError(
      await app.call('POST', `/v1/hosting/${id}/files/mkdir`, { key: k, body: { path: '/public_html/blog' } }),
      400,
      /already exists/,
    );
    expectError(
      await app.call('POST', `/v1/hosting/${id}/files/mkdir`, { key: k, body: { path: '/public_html/a/b/c' } }),
      400,
      /does not exist/,
    );

    const write = await app.call('PUT', `/v1/hosting/${id}/files`, {
      key: k,
      body: { path: '/public_html/blog/post.md', content: '# Hëllo\n' },
    });
    expect(write.status, write.text).toBe(200);
    expect(write.body).toMatchObject({
      name: 'post.md',
      path: '/public_html/blog/post.md',
      type: 'file',
      sizeBytes: 9,
    });
    expect(fs.readFileSync(path.join(home, 'public_html/blog/post.md'), 'utf8')).toBe('# Hëllo\n');
    expectError(
      await app.call('PUT', `/v1/hosting/${id}/files`, { key: k, body: { path: '/nope/post.md', content: 'x' } }),
      400,
      /"\/nope" does not exist/,
    );
    expectError(
      await app.call('PUT', `/v1/hosting/${id}/files`, { key: k, body: { path: '/public_html/blog', content: 'x' } }),
      400,
      /is a directory/,
    );
    expectError(
      await app.call('PUT', `/v1/hosting/${id}/files`, { key: k, body: { path: '/public_html/x.txt' } }),
      400,
    );

    const read = await app.call(
      'GET',
      `/v1/hosting/${id}/files/read?path=${encodeURIComponent('/public_html/blog/post.md')}`,
      { key: k },
    );
    expect(read.body).toMatchObject({ path: '/public_html/blog/post.md', content: '# Hëllo\n', sizeBytes: 9 });
    expectError(
      await app.call('GET', `/v1/hosting/${id}/files/read?path=/public_html/missing.txt`, { key: k }),
      404,
      /does not exist/,
    );
    expectError(
      await app.call('GET', `/v1/hosting/${id}/files/read?path=/public_html`, { key: k }),
      400,
      /is a directory/,
    );

    const moved = await app.call('POST', `/v1/hosting/${id}/files/rename`, {
      key: k,
      body: { from: '/public_html/blog/post.md', to: '/public_html/first.md' },
    });
    expect(moved.status, moved.text).toBe(200);
    expect(moved.body).toMatchObject({ path: '/public_html/first.md', type: 'file' });
    expect(fs.existsSync(path.join(home, 'public_html/blog/post.md'))).toBe(false);
    expectError(
      await app.call('POST', `/v1/hosting/${id}/files/rename`, {
        key: k,
        body: { from: '/public_html/first.md', to: '/public_html/index.html' },
      }),
      400,
      /already exists/,
    );
    expectError(
      await app.call('POST', `/v1/hosting/${id}/files/rename`, {
        key: k,
        body: { from: '/public_html/blog', to: '/public_html/blog/inner' },
      }),
      400,
      /into itself/,
    );
    expectError(
      await app.call('POST', `/v1/hosting/${id}/files/rename`, { key: k, body: { from: '/', to: '/x' } }),
      400,
      /root/,
    );

    await app.call('PUT', `/v1/hosting/${id}/files`, {
      key: k,
      body: { path: '/public_html/blog/draft.md', content: 'x' },
    });
    const refused = await app.call('DELETE', `/v1/hosting/${id}/files?path=/public_html/blog`, { key: k });
    expectError(refused, 400, /not empty.*recursive=true/);
    expect(fs.existsSync(path.join(home, 'public_html/blog/draft.md'))).toBe(true);
    const del = await app.call('DELETE', `/v1/hosting/${id}/files?path=/public_html/blog&recursive=true`, { key: k });
    expect(del.body).toEqual({ path: '/public_html/blog', type: 'directory', deleted: true });
    expect(fs.existsSync(path.join(home, 'public_html/blog'))).toBe(false);
    expect((await app.call('DELETE', `/v1/hosting/${id}/files?path=/public_html/first.md`, { key: k })).body).toEqual({
      path: '/public_html/first.md',
      type: 'file',
      deleted: true,
    });
    expectError(await app.call('DELETE', `/v1/hosting/${id}/files?path=/`, { key: k }), 400, /root/);
    expectError(
      await app.call('DELETE', `/v1/hosting/${id}/files?path=/public_html/index.html&recursive=maybe`, { key: k }),
      400,
      /recursive/,
    );
  });

  it('a file or directory that does not exist → 404 on read, download, delete, rename (source) and list; a path leaving the site stays 400', async () => {
    const q = (p: string) => encodeURIComponent(p);
    const missing = '/public_html/gone/nothing.txt';
    const answers = {
      read: await app.call('GET', `/v1/hosting/${id}/files/read?path=${q(missing)}`, { key: c.key }),
      delete: await app.call('DELETE', `/v1/hosting/${id}/files?path=${q(missing)}`, { key: c.key }),
      rename: await app.call('POST', `/v1/hosting/${id}/files/rename`, {
        key: c.key,
        body: { from: missing, to: '/public_html/x.txt' },
      }),
      list: await app.call('GET', `/v1/hosting/${id}/files?path=${q('/public_html/gone')}`, { key: c.key }),
    };
    for (const [what, res] of Object.entries(answers)) {
      expect(res.status, `${what}: ${res.text}`).toBe(404);
      expect(res.body, what).toEqual({
        statusCode: 404,
        message: expect.stringMatching(/"\/public_html\/gone(\/nothing\.txt)?" does not exist\.$/),
        error: 'Not Found',
        code: 'NOT_FOUND',
        param: expect.stringMatching(/^(path|from)$/),
      });
    }
    expect(answers.rename.body.message).toMatch(/^from /);
    const down = await fetchBytes(app, c.key, `/v1/hosting/${id}/files/download?path=${q(missing)}`);
    expect(down.status).toBe(404);
    expect(down.json()).toEqual({
      statusCode: 404,
      message: `path "${missing}" does not exist.`,
      error: 'Not Found',
      code: 'NOT_FOUND',
      param: 'path',
    });
    // Escaping the site is a refused path, not a missing file.
    expectError(
      await app.call('GET', `/v1/hosting/${id}/files/read?path=${q('/public_html/../../etc/passwd')}`, { key: c.key }),
      400,
      /"\.\." segments/,
    );
    expect((await fetchBytes(app, c.key, `/v1/hosting/${id}/files/download?path=${q('../etc/passwd')}`)).status).toBe(
      400,
    );
  });

  it('reading a binary file as text → 400 with a clear message', async () => {
    fs.writeFileSync(
      path.join(home, 'public_html/logo.png'),
      Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]),
    );
    fs.writeFileSync(path.join(home, 'public_html/latin1.txt'), Buffer.from([0x63, 0x61, 0x66, 0xe9]));
    expectError(
      await app.call('GET', `/v1/hosting/${id}/files/read?path=/public_html/logo.png`, { key: c.key }),
      400,
      /binary file, not UTF-8 text; download it/,
    );
    expectError(
      await app.call('GET', `/v1/hosting/${id}/files/read?path=/public_html/latin1.txt`, { key: c.key }),
      400,
      /binary file/,
    );
  });
});

describe('upload and download', () => {
  it('round-trips a binary file byte for byte, with an RFC 6266 Content-Disposition', async () => {
    const data = Buffer.concat([Buffer.from(Array.from({ length: 256 }, (_, i) => i)), randomBytes(200 * 1024)]);
    const name = 'données €.bin';
    const up = await upload(app, c.key, id, { path: '/public_html', name, data });
    expect(up.status, up.text).toBe(200);
    expect(up.body).toMatchObject({ name, path: `/public_html/${name}`, type: 'file', sizeBytes: data.length });
    expect(up.headers.get('x-ratelimit-limit')).toBe('120');
    expect(fs.readFileSync(path.join(home, 'public_html', name)).equals(data)).toBe(true);

    const down = await fetchBytes(
      app,
      c.key,
      `/v1/hosting/${id}/files/download?path=${encodeURIComponent(`/public_html/${name}`)}`,
    );
    expect(down.status).toBe(200);
    expect(down.bytes.equals(data)).toBe(true);
    expect(createHash('sha256').update(down.bytes).digest('hex')).toBe(createHash('sha256').update(data).digest('hex'));
    expect(down.headers.get('content-type')).toBe('application/octet-stream');
    expect(down.headers.get('content-length')).toBe(String(data.length));
    expect(down.headers.get('content-disposition')).toBe(
      `attachment; filename="donn_es _.bin"; filename*=UTF-8''donn%C3%A9es%20%E2%82%AC.bin`,
    );
    expect(down.headers.get('x-ratelimit-remaining')).toMatch(/^\d+$/);

    // A path that is not a directory names the file itself; an existing file is replaced.
    const again = await upload(app, c.key, id, {
      path: '/public_html/renamed.bin',
      name: 'ignored.bin',
      data: data.subarray(0, 1000),
    });
    expect(again.body).toMatchObject({ path: '/public_html/renamed.bin', sizeBytes: 1000 });
    const replaced = await upload(app, c.key, id, {
      path: '/public_html/renamed.bin',
      name: 'x',
      data: Buffer.from('short'),
    });
    expect(replaced.body.sizeBytes).toBe(5);
    const dl = await fetchBytes(app, c.key, `/v1/hosting/${id}/files/download?path=/public_html/renamed.bin`);
    expect(dl.bytes.toString()).toBe('short');
    // Default target: /public_html.
    expect((await upload(app, c.key, id, { name: 'default.txt', data: Buffer.from('d') })).body.path).toBe(
      '/public_html/default.txt',
    );
    expectError(
      await app.call('GET', `/v1/hosting/${id}/files/download?path=/public_html`, { key: c.key }),
      400,
      /is a directory/,
    );
  });

  it('over the size limit → 413 and the partial file is removed; a body without "file" → 400; not multipart → 415', async () => {
    const big = randomBytes(UPLOAD_LIMIT + 10_000);
    const res = await upload(app, c.key, id, { name: 'big.bin', data: big });
    expectError(res, 413, /upload limit of 262144 bytes/);
    expect(fs.existsSync(path.join(home, 'public_html/big.bin'))).toBe(false);
    expect(fs.readdirSync(siteDir(app, id, 'tmp'))).toEqual([]);
    // Exactly at the limit is fine.
    expect((await upload(app, c.key, id, { name: 'edge.bin', data: big.subarray(0, UPLOAD_LIMIT) })).status).toBe(200);

    expectError(
      await upload(app, c.key, id, { name: 'x.txt', data: Buffer.from('x'), field: 'document' }),
      400,
      /"file"/,
    );
    const json = await app.call('POST', `/v1/hosting/${id}/files/upload`, { key: c.key, body: { file: 'x' } });
    expectError(json, 415, /multipart\/form-data/);
    expectError(
      await upload(app, c.key, id, { path: '/no/such/dir/x', name: 'x', data: Buffer.from('x') }),
      400,
      /does not exist/,
    );
  });
});

describe('sandbox: hostile paths', () => {
  it('refuses 25 hostile paths with 400 on every file operation (a host path is a missing name inside the site: 404 where it must exist); nothing outside the root is read, written or deleted', async () => {
    const canaryDir = path.join(app.dataDir, 'outside');
    fs.mkdirSync(canaryDir, { recursive: true });
    fs.writeFileSync(path.join(canaryDir, 'canary.txt'), SECRET);
    fs.writeFileSync(path.join(app.dataDir, 'canary.txt'), SECRET);
    fs.writeFileSync(path.join(app.dataDir, 'hosting', 'canary.txt'), SECRET);
    // Links a customer could not make, placed on disk to prove they are not followed out of the root.
    fs.symlinkSync(canaryDir, path.join(home, 'public_html/escape'));
    fs.symlinkSync(path.join(siteDir(app, id, 'private'), 'deploy_key'), path.join(home, 'public_html/keylink'));
    fs.symlinkSync('../../../outside/canary.txt', path.join(home, 'public_html/relative-link'));

    const hostile = [
      '../canary.txt',
      '/../../canary.txt',
      '/public_html/../../canary.txt',
      '..',
      '/public_html/..',
      '/public_html/escape/../../canary.txt',
      '%2e%2e/%2e%2e/canary.txt',
      '%252e%252e%252fcanary.txt',
      '/public_html/%2F..%2F..%2Fcanary.txt',
      '..%2fcanary.txt',
      '/public_html/%c0%ae%c0%ae/canary.txt',
      '/public_html/index.html\0.txt',
      '/public_html/\u0001evil',
      '..\\..\\canary.txt',
      '\\public_html\\index.html',
      'C:\\Windows\\win.ini',
      'C:/canary.txt',
      '/public_html/escape',
      '/public_html/escape/canary.txt',
      '/public_html/escape/new-dir',
      '/public_html/keylink',
      '/public_html/relative-link',
      path.join(app.dataDir, 'canary.txt'),
      path.join(canaryDir, 'canary.txt'),
      '',
    ];
    expect(hostile.length).toBeGreaterThanOrEqual(20);
    const hostPaths = [path.join(app.dataDir, 'canary.txt'), path.join(canaryDir, 'canary.txt')];
    const MUST_EXIST = ['list', 'read', 'delete', 'rename from', 'download'];

    const outsideBefore = snapshot(app.dataDir);
    let key = await freshKey();
    let sent = 0;
    const call = async (method: string, p: string, body?: unknown) => {
      if (++sent % 100 === 0) key = await freshKey();
      return app.call(method, p, { key, body });
    };
    const q = (p: string) => encodeURIComponent(p);
    for (const p of hostile) {
      const attempts: [string, Awaited<ReturnType<typeof call>>][] = [
        ['list', await call('GET', `/v1/hosting/${id}/files?path=${q(p)}`)],
        ['read', await call('GET', `/v1/hosting/${id}/files/read?path=${q(p)}`)],
        ['write', await call('PUT', `/v1/hosting/${id}/files`, { path: p, content: 'pwned' })],
        ['delete', await call('DELETE', `/v1/hosting/${id}/files?path=${q(p)}&recursive=true`)],
        ['mkdir', await call('POST', `/v1/hosting/${id}/files/mkdir`, { path: p })],
        [
          'rename from',
          await call('POST', `/v1/hosting/${id}/files/rename`, { from: p, to: '/public_html/stolen.txt' }),
        ],
        ['rename to', await call('POST', `/v1/hosting/${id}/files/rename`, { from: '/public_html/index.html', to: p })],
        ['download', await call('GET', `/v1/hosting/${id}/files/download?path=${q(p)}`)],
      ];
      if (++sent % 100 === 0) key = await freshKey();
      const up = await upload(app, key, id, { path: p, name: 'x.txt', data: Buffer.from('pwned') });
      attempts.push(['upload', { ...up, headers: up.headers }]);
      for (const [what, res] of attempts) {
        // A host path is only a name inside the site: where it must exist it is missing (404), never the host's file.
        const status = hostPaths.includes(p) && MUST_EXIST.includes(what) ? 404 : 400;
        expect(res.status, `${what} ${JSON.stringify(p)}: ${res.text}`).toBe(status);
        expect(res.body.message, `${what} ${JSON.stringify(p)}`).toMatch(/path|from|to/);
        expect(res.text).not.toContain(SECRET);
        expect(res.text).not.toContain('OPENSSH');
      }
    }
    // Hostile multipart file names (the target directory is fine).
    for (const name of ['../canary.txt', '..\\canary.txt', 'a/b.txt', '..']) {
      expectError(
        await upload(app, await freshKey(), id, { path: '/public_html', name, data: Buffer.from('pwned') }),
        400,
      );
    }

    expect(snapshot(app.dataDir)).toEqual(outsideBefore);
    expect(fs.readFileSync(path.join(canaryDir, 'canary.txt'), 'utf8')).toBe(SECRET);
    expect(fs.readdirSync(canaryDir)).toEqual(['canary.txt']);
    expect(fs.readFileSync(path.join(home, 'public_html/index.html'), 'utf8')).toMatch(/hosted here/);
    expect(fs.existsSync(path.join(home, 'public_html/stolen.txt'))).toBe(false);
    expect(fs.readdirSync(siteDir(app, id, 'tmp'))).toEqual([]);
    for (const link of ['escape', 'keylink', 'relative-link']) fs.unlinkSync(path.join(home, 'public_html', link));
  });
});

/** Every file outside the account's home (and the database files, which change on their own): path → sha256. */
function snapshot(root: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (dir: string) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, e.name);
      if (full === home || full === path.join(root, 'pgdata')) continue;
      if (e.isDirectory()) walk(full);
      else if (e.isFile())
        out[path.relative(root, full)] = createHash('sha256').update(fs.readFileSync(full)).digest('hex');
      else out[path.relative(root, full)] = 'link';
    }
  };
  walk(root);
  return out;
}
