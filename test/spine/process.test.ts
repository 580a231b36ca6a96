import { execFile } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it, vi } from 'vitest';

// Whole processes start here (tsx compiles, PGlite initialises): allow for a loaded machine.
vi.setConfig({ testTimeout: 180_000 });
import { ROOT, spawnServer, waitReady, type ServerProcess } from '../helpers/process.ts';

const run = promisify(execFile);
const started: ServerProcess[] = [];
afterAll(async () => {
  for (const p of started) {
    if (p.child.exitCode === null) p.child.kill('SIGKILL');
    fs.rmSync(p.dataDir, { recursive: true, force: true });
  }
});

// The embedded database's start: in CI's PostgreSQL run it would repeat the embedded run exactly.
const embeddedRun = !process.env.TEST_DATABASE_URL;

describe.runIf(embeddedRun)('npm start on a fresh data directory', () => {
  it('serves, writes the demo credentials and the operator token, answers GET /v1/account with the demo key; SIGTERM stops it cleanly', async () => {
    const server = await spawnServer();
    started.push(server);
    const ms = await waitReady(server);
    console.log(`start-up to /readyz on a fresh data directory: ${ms} ms`);
    // On the embedded database the process replaced itself (same pid) with a capped young generation.
    expect(commandLine(server)).toEqual([
      process.execPath,
      '--max-semi-space-size=8',
      path.join(ROOT, 'bin/svc.js'),
      'serve',
    ]);

    const creds = JSON.parse(fs.readFileSync(path.join(server.dataDir, 'demo-credentials.json'), 'utf8'));
    expect(creds.apiKey).toMatch(/^svc_[A-Za-z0-9]{40}$/);
    expect((fs.statSync(path.join(server.dataDir, 'demo-credentials.json')).mode & 0o777).toString(8)).toBe('600');
    const res = await fetch(`${server.url}/v1/account`, { headers: { Authorization: `Bearer ${creds.apiKey}` } });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ id: creds.accountId, email: 'demo@example.com' });

    const token = fs.readFileSync(path.join(server.dataDir, 'admin-token'), 'utf8').trim();
    expect(token.length).toBeGreaterThanOrEqual(32);
    // The log says where the token is, never what it is; no key appears in it either.
    expect(server.output()).toContain('admin-token');
    expect(server.output()).not.toContain(token);
    expect(server.output()).not.toContain(creds.apiKey);

    // The CLI calls the operator API with the token from the data directory.
    const cli = await run(process.execPath, ['bin/svc.js', 'admin', 'GET', '/catalogue'], {
      cwd: ROOT,
      env: { ...process.env, DATA_DIR: server.dataDir, PORT: String(server.port), ADMIN_TOKEN: '' },
    });
    expect(JSON.parse(cli.stdout).serverPlans.length).toBeGreaterThan(3);
    const created = await run(
      process.execPath,
      [
        'bin/svc.js',
        'admin',
        'POST',
        '/accounts',
        JSON.stringify({ email: 'cli@example.com', name: 'CLI', country: 'fr' }),
      ],
      { cwd: ROOT, env: { ...process.env, DATA_DIR: server.dataDir, SERVICE_BASE_URL: server.url, ADMIN_TOKEN: '' } },
    );
    expect(JSON.parse(created.stdout)).toMatchObject({ email: 'cli@example.com', country: 'FR' });

    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(0);
    expect(server.output()).toContain('"msg":"stopped"');

    // A second start on the same data directory keeps the data and does not recreate the demo.
    const again = await spawnServer({}, server.dataDir);
    started.push(again);
    await waitReady(again);
    const res2 = await fetch(`${again.url}/v1/account`, { headers: { Authorization: `Bearer ${creds.apiKey}` } });
    expect(res2.status).toBe(200);
    expect(JSON.parse(fs.readFileSync(path.join(server.dataDir, 'demo-credentials.json'), 'utf8')).apiKey).toBe(
      creds.apiKey,
    );
    again.child.kill('SIGTERM');
    expect(await again.exited).toBe(0);
  });

  it('graceful shutdown: SIGTERM refuses new connections but finishes the request in flight', async () => {
    const server = await spawnServer({ ADMIN_TOKEN: 'graceful-admin-token' });
    started.push(server);
    await waitReady(server);
    const body = JSON.stringify({ email: 'late@example.com', name: 'Late', country: 'NL' });
    // Start a request and send only half its body.
    const response = new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = http.request(
        `${server.url}/admin/accounts`,
        {
          method: 'POST',
          headers: {
            Authorization: 'Bearer graceful-admin-token',
            'Content-Type': 'application/json',
            'Content-Length': Buffer.byteLength(body),
          },
        },
        (res) => {
          let text = '';
          res.on('data', (d) => (text += d));
          res.on('end', () => resolve({ status: res.statusCode!, body: text }));
        },
      );
      req.on('error', reject);
      req.write(body.slice(0, 10));
      setTimeout(() => {
        server.child.kill('SIGTERM');
        setTimeout(async () => {
          // New connections are refused while the old request is still open.
          await expect(fetch(`${server.url}/healthz`)).rejects.toThrow();
          req.end(body.slice(10));
        }, 500);
      }, 300);
    });
    const done = await response;
    expect(done.status).toBe(201);
    expect(JSON.parse(done.body).email).toBe('late@example.com');
    expect(await server.exited).toBe(0);
  });
});

describe.runIf(embeddedRun)("the embedded server's young generation", () => {
  it('is left as the operator sets it (NODE_OPTIONS --max-semi-space-size): no re-launch', async () => {
    const server = await spawnServer({ NODE_OPTIONS: '--max-semi-space-size=16' });
    started.push(server);
    await waitReady(server);
    expect(commandLine(server)).toEqual([process.execPath, 'bin/svc.js', 'serve']);
    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(0);
  });
});

/** The process's command line as the kernel has it now (after any execve). */
function commandLine(server: ServerProcess): string[] {
  return fs.readFileSync(`/proc/${server.child.pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
}

describe.runIf(process.env.TEST_DATABASE_URL)('with DATABASE_URL', () => {
  it('never creates the demo account nor its data', async () => {
    const { freshDatabase } = await import('../helpers/app.ts');
    const db = (await freshDatabase())!;
    const server = await spawnServer({ DATABASE_URL: db.url, ADMIN_TOKEN: 'pg-admin-token' });
    started.push(server);
    try {
      await waitReady(server);
      // PostgreSQL deployments keep V8's own young-generation sizing.
      expect(commandLine(server)).toEqual([process.execPath, 'bin/svc.js', 'serve']);
      expect(fs.existsSync(path.join(server.dataDir, 'demo-credentials.json'))).toBe(false);
      // Nor any of its data: the database holds no account, server or invoice.
      const { default: pg } = await import('pg');
      const client = new pg.Client({ connectionString: db.url });
      await client.connect();
      try {
        const counts = await client.query(
          'SELECT (SELECT count(*) FROM "Account")::int AS accounts, (SELECT count(*) FROM "Server")::int AS servers, (SELECT count(*) FROM "Invoice")::int AS invoices',
        );
        expect(counts.rows[0]).toEqual({ accounts: 0, servers: 0, invoices: 0 });
      } finally {
        await client.end();
      }
      server.child.kill('SIGTERM');
      expect(await server.exited).toBe(0);
    } finally {
      await db.drop();
    }
  });
});
