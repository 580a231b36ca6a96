import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import bcrypt from 'bcryptjs';
import * as tar from 'tar';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { activeHosting, fetchBytes, MANAGE, siteDir } from '../helpers/hosting.ts';
import { expectError } from '../helpers/servers.ts';

let app: TestApp;
/** Where a downloaded backup is unpacked. */
let work: string;
beforeAll(async () => {
  app = await startTestApp();
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-backup-'));
});
afterAll(async () => {
  await app?.stop();
  fs.rmSync(work, { recursive: true, force: true });
});

describe('databases', () => {
  it('create by suffix (validated, plan quota), list, delete; the dump lives on disk', async () => {
    const c = await app.customer({ scopes: MANAGE });
    const id = await activeHosting(app, c);
    const prefix = (await app.call('GET', `/v1/hosting/${id}`, { key: c.key })).body.connection.databasePrefix;
    expect((await app.call('GET', `/v1/hosting/${id}/databases`, { key: c.key })).body.data).toEqual([]);
    for (const bad of ['Shop', 'shop-1', '', 'a'.repeat(17), 'x;drop']) {
      expectError(
        await app.call('POST', `/v1/hosting/${id}/databases`, { key: c.key, body: { suffix: bad } }),
        400,
        /suffix/,
      );
    }
    const created = await app.call('POST', `/v1/hosting/${id}/databases`, { key: c.key, body: { suffix: 'shop' } });
    expect(created.status, created.text).toBe(200);
    expect(created.body).toMatchObject({
      name: `${prefix}shop`,
      suffix: 'shop',
      user: `${prefix}shop`,
      host: 'localhost',
    });
    expect(fs.readFileSync(path.join(siteDir(app, id, 'mysql'), `${prefix}shop.sql`), 'utf8')).toContain(
      `CREATE DATABASE IF NOT EXISTS \`${prefix}shop\``,
    );
    expectError(
      await app.call('POST', `/v1/hosting/${id}/databases`, { key: c.key, body: { suffix: 'shop' } }),
      400,
      /already exists/,
    );
    expect(
      (await app.call('POST', `/v1/hosting/${id}/databases`, { key: c.key, body: { suffix: 'blog' } })).status,
    ).toBe(200);
    expectError(
      await app.call('POST', `/v1/hosting/${id}/databases`, { key: c.key, body: { suffix: 'third' } }),
      400,
      /allows 2 extra databases/,
    );
    expect(
      (await app.call('GET', `/v1/hosting/${id}/databases`, { key: c.key })).body.data.map(
        (d: { suffix: string }) => d.suffix,
      ),
    ).toEqual(['blog', 'shop']);
    expect((await app.call('DELETE', `/v1/hosting/${id}/databases/${prefix}shop`, { key: c.key })).body).toEqual({
      name: `${prefix}shop`,
      deleted: true,
    });
    expect(fs.existsSync(path.join(siteDir(app, id, 'mysql'), `${prefix}shop.sql`))).toBe(false);
    expectError(await app.call('DELETE', `/v1/hosting/${id}/databases/${prefix}shop`, { key: c.key }), 404);
  });
});

describe('backups', () => {
  it('backup → change → restore returns the site and its databases to the backup; download streams the gzip tarball', async () => {
    const c = await app.customer({ scopes: MANAGE });
    const id = await activeHosting(app, c);
    const prefix = (await app.call('GET', `/v1/hosting/${id}`, { key: c.key })).body.connection.databasePrefix;
    await app.call('PUT', `/v1/hosting/${id}/files`, {
      key: c.key,
      body: { path: '/public_html/index.html', content: 'version 1' },
    });
    await app.call('POST', `/v1/hosting/${id}/files/mkdir`, { key: c.key, body: { path: '/public_html/assets' } });
    await app.call('PUT', `/v1/hosting/${id}/files`, {
      key: c.key,
      body: { path: '/public_html/assets/app.css', content: 'body{}' },
    });
    await app.call('POST', `/v1/hosting/${id}/databases`, { key: c.key, body: { suffix: 'wp' } });

    const backup = await app.call('POST', `/v1/hosting/${id}/backups`, { key: c.key });
    expect(backup.status, backup.text).toBe(200);
    expect(backup.body).toMatchObject({
      id: expect.stringMatching(/^hbk_/),
      hostingId: id,
      status: 'available',
      databases: [`${prefix}wp`],
      sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    expect(backup.body.sizeBytes).toBeGreaterThan(100);

    // Change everything.
    await app.call('PUT', `/v1/hosting/${id}/files`, {
      key: c.key,
      body: { path: '/public_html/index.html', content: 'version 2' },
    });
    await app.call('PUT', `/v1/hosting/${id}/files`, {
      key: c.key,
      body: { path: '/public_html/new.html', content: 'new' },
    });
    await app.call('DELETE', `/v1/hosting/${id}/files?path=/public_html/assets&recursive=true`, { key: c.key });
    await app.call('DELETE', `/v1/hosting/${id}/databases/${prefix}wp`, { key: c.key });
    await app.call('POST', `/v1/hosting/${id}/databases`, { key: c.key, body: { suffix: 'later' } });

    const restore = await app.call('POST', `/v1/hosting/${id}/backups/${backup.body.id}/restore`, { key: c.key });
    expect(restore.status, restore.text).toBe(200);
    expect(restore.body).toMatchObject({ id: backup.body.id, hostingId: id, databases: [`${prefix}wp`] });
    expect(
      (await app.call('GET', `/v1/hosting/${id}/files/read?path=/public_html/index.html`, { key: c.key })).body.content,
    ).toBe('version 1');
    expect(
      (await app.call('GET', `/v1/hosting/${id}/files/read?path=/public_html/assets/app.css`, { key: c.key })).body
        .content,
    ).toBe('body{}');
    expectError(
      await app.call('GET', `/v1/hosting/${id}/files/read?path=/public_html/new.html`, { key: c.key }),
      404,
      /does not exist/,
    );
    expect(
      (await app.call('GET', `/v1/hosting/${id}/databases`, { key: c.key })).body.data.map(
        (d: { name: string }) => d.name,
      ),
    ).toEqual([`${prefix}wp`]);
    expect(fs.existsSync(path.join(siteDir(app, id, 'mysql'), `${prefix}later.sql`))).toBe(false);

    const down = await fetchBytes(app, c.key, `/v1/hosting/${id}/backups/${backup.body.id}/download`);
    expect(down.status).toBe(200);
    expect(down.headers.get('content-type')).toBe('application/gzip');
    expect(down.headers.get('content-length')).toBe(String(backup.body.sizeBytes));
    expect(down.headers.get('content-disposition')).toMatch(
      new RegExp(`^attachment; filename=".*-${backup.body.id}\\.tar\\.gz"; filename\\*=UTF-8''`),
    );
    expect([...down.bytes.subarray(0, 2)]).toEqual([0x1f, 0x8b]);
    const file = path.join(work, 'backup.tar.gz');
    fs.writeFileSync(file, down.bytes);
    const entries: string[] = [];
    await tar.t({ file, onReadEntry: (e) => void entries.push(e.path) });
    expect(entries).toEqual(
      expect.arrayContaining([
        'home/public_html/index.html',
        'home/public_html/assets/app.css',
        `mysql/${prefix}wp.sql`,
      ]),
    );

    const list = await app.call('GET', `/v1/hosting/${id}/backups`, { key: c.key });
    expect(list.body.data).toEqual([backup.body]);
    expect((await app.call('DELETE', `/v1/hosting/${id}/backups/${backup.body.id}`, { key: c.key })).body).toEqual({
      id: backup.body.id,
      deleted: true,
    });
    expect(fs.readdirSync(siteDir(app, id, 'backups'))).toEqual([]);
    expectError(await app.call('POST', `/v1/hosting/${id}/backups/${backup.body.id}/restore`, { key: c.key }), 404);
    expect((await fetchBytes(app, c.key, `/v1/hosting/${id}/backups/${backup.body.id}/download`)).status).toBe(404);
    const other = await app.customer({ scopes: MANAGE });
    expectError(await app.call('GET', `/v1/hosting/${id}/backups`, { key: other.key }), 404);
  });
});

describe('cron', () => {
  it('get header and jobs; replace with parsed schedules; an invalid job is refused by index and nothing changes', async () => {
    const c = await app.customer({ scopes: MANAGE });
    const id = await activeHosting(app, c);
    const empty = await app.call('GET', `/v1/hosting/${id}/cron`, { key: c.key });
    expect(empty.body.jobs).toEqual([]);
    expect(empty.body.header).toMatch(/^# crontab of u\w+ .*\nSHELL=\/bin\/bash/);
    const jobs = [
      { schedule: '*/5 * * * *', command: 'php /home/public_html/cron.php' },
      { schedule: '@daily', command: 'find /tmp -mtime +7 -delete' },
      { schedule: '0 12 * * MON-FRI', command: 'echo "weekday"' },
    ];
    const set = await app.call('PUT', `/v1/hosting/${id}/cron`, { key: c.key, body: { jobs } });
    expect(set.status, set.text).toBe(200);
    expect(set.body.jobs).toEqual(jobs);
    expect((await app.call('GET', `/v1/hosting/${id}/cron`, { key: c.key })).body.jobs).toEqual(jobs);
    const crontab = fs.readFileSync(path.join(siteDir(app, id, 'private'), 'crontab'), 'utf8');
    expect(crontab).toContain('*/5 * * * * php /home/public_html/cron.php\n@daily find /tmp -mtime +7 -delete\n');

    for (const [bad, message] of [
      [{ schedule: '61 * * * *', command: 'x' }, /jobs\[1\]\.schedule "61 \* \* \* \*" is not a valid cron schedule/],
      [{ schedule: '* * *', command: 'x' }, /jobs\[1\]\.schedule .* five fields/],
      [{ schedule: '* * * * * *', command: 'x' }, /jobs\[1\]\.schedule/],
      [{ schedule: '0 0 31 2 *', command: 'x' }, /jobs\[1\]\.schedule/],
      [{ schedule: '@reboot', command: 'x' }, /jobs\[1\]\.schedule/],
      [{ schedule: '* * * * *', command: 'echo a\nrm -rf /' }, /jobs\[1\]\.command must be a single line/],
      [{ schedule: '* * * * *', command: '   ' }, /jobs\[1\]\.command/],
    ] as const) {
      expectError(
        await app.call('PUT', `/v1/hosting/${id}/cron`, { key: c.key, body: { jobs: [jobs[0], bad] } }),
        400,
        message,
      );
    }
    expectError(
      await app.call('PUT', `/v1/hosting/${id}/cron`, { key: c.key, body: { jobs: [{ schedule: '* * * * *' }] } }),
      400,
    );
    expect((await app.call('GET', `/v1/hosting/${id}/cron`, { key: c.key })).body.jobs).toEqual(jobs);
    expect((await app.call('PUT', `/v1/hosting/${id}/cron`, { key: c.key, body: { jobs: [] } })).body.jobs).toEqual([]);
  });
});

describe('protected directories', () => {
  it('add/update with an htpasswd bcrypt ($2y$) hash that is never returned, list, remove by path', async () => {
    const c = await app.customer({ scopes: MANAGE });
    const id = await activeHosting(app, c);
    await app.call('POST', `/v1/hosting/${id}/files/mkdir`, { key: c.key, body: { path: '/public_html/admin' } });
    expectError(
      await app.call('POST', `/v1/hosting/${id}/protected-dirs`, {
        key: c.key,
        body: { path: '/public_html/nope', basic_user: 'ada', password: 'correct horse' },
      }),
      404,
      /does not exist/,
    );
    expectError(
      await app.call('POST', `/v1/hosting/${id}/protected-dirs`, {
        key: c.key,
        body: { path: '/public_html/index.html', basic_user: 'ada', password: 'correct horse' },
      }),
      400,
      /not a directory/,
    );
    expectError(
      await app.call('POST', `/v1/hosting/${id}/protected-dirs`, {
        key: c.key,
        body: { path: '/public_html/admin', basic_user: 'ada:x', password: 'correct horse' },
      }),
      400,
      /basic_user/,
    );
    expectError(
      await app.call('POST', `/v1/hosting/${id}/protected-dirs`, {
        key: c.key,
        body: { path: '/public_html/admin', basic_user: 'ada', password: 'short' },
      }),
      400,
      /password/,
    );
    expectError(
      await app.call('POST', `/v1/hosting/${id}/protected-dirs`, {
        key: c.key,
        body: { path: '../admin', basic_user: 'ada', password: 'correct horse' },
      }),
      400,
      /path/,
    );

    const added = await app.call('POST', `/v1/hosting/${id}/protected-dirs`, {
      key: c.key,
      body: { path: '/public_html/admin/', basic_user: 'ada', password: 'correct horse' },
    });
    expect(added.status, added.text).toBe(200);
    expect(added.body).toEqual({
      path: '/public_html/admin',
      basic_user: 'ada',
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    expect(added.text).not.toMatch(/correct horse|\$2y\$/);
    const htpasswdDir = path.join(siteDir(app, id, 'private'), 'htpasswd');
    const [file] = fs.readdirSync(htpasswdDir);
    const [user, hash] = fs.readFileSync(path.join(htpasswdDir, file), 'utf8').trim().split(':');
    expect(user).toBe('ada');
    expect(hash).toMatch(/^\$2y\$10\$/);
    expect(await bcrypt.compare('correct horse', hash)).toBe(true);

    const updated = await app.call('POST', `/v1/hosting/${id}/protected-dirs`, {
      key: c.key,
      body: { path: '/public_html/admin', basic_user: 'grace', password: 'another secret' },
    });
    expect(updated.body.basic_user).toBe('grace');
    const listed = await app.call('GET', `/v1/hosting/${id}/protected-dirs`, { key: c.key });
    expect(listed.body.data).toEqual([updated.body]);
    expect(listed.text).not.toMatch(/secret|\$2y\$/);
    const [user2, hash2] = fs.readFileSync(path.join(htpasswdDir, file), 'utf8').trim().split(':');
    expect(user2).toBe('grace');
    expect(await bcrypt.compare('another secret', hash2)).toBe(true);

    expectError(
      await app.call('DELETE', `/v1/hosting/${id}/protected-dirs?path=/public_html/other`, { key: c.key }),
      404,
    );
    expectError(await app.call('DELETE', `/v1/hosting/${id}/protected-dirs`, { key: c.key }), 400);
    expect(
      (await app.call('DELETE', `/v1/hosting/${id}/protected-dirs?path=/public_html/admin`, { key: c.key })).body,
    ).toEqual({ path: '/public_html/admin', deleted: true });
    expect(fs.readdirSync(htpasswdDir)).toEqual([]);
    expect((await app.call('GET', `/v1/hosting/${id}/protected-dirs`, { key: c.key })).body.data).toEqual([]);
  });
});
