import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ensureDashboardBuilt } from '../helpers/browser.ts';
import { spawnServer, waitReady, type ServerProcess } from '../helpers/process.ts';

let server: ServerProcess | undefined;
afterAll(async () => {
  server?.child.kill('SIGTERM');
  await server?.exited;
  if (server) fs.rmSync(server.dataDir, { recursive: true, force: true });
});

describe('npm start: dashboard and OAuth on the real process', () => {
  it('serves the dashboard, the OAuth metadata at PUBLIC_BASE_URL, and the demo account signs in with its password', {
    timeout: 90_000,
  }, async () => {
    ensureDashboardBuilt();
    server = await spawnServer();
    await waitReady(server);
    const page = await fetch(`${server.url}/`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");

    const meta = await (await fetch(`${server.url}/.well-known/oauth-authorization-server`)).json();
    expect(meta.issuer).toBe(server.url);
    expect(meta.device_authorization_endpoint).toBe(`${server.url}/oauth/device_authorization`);

    const creds = JSON.parse(fs.readFileSync(path.join(server.dataDir, 'demo-credentials.json'), 'utf8'));
    expect(creds.password.length).toBeGreaterThanOrEqual(10);
    const pre = await fetch(`${server.url}/dashboard/api/session`);
    const { csrfToken } = await pre.json();
    const signIn = await fetch(`${server.url}/dashboard/api/sign-in`, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/json',
        Origin: server.url,
        Cookie: pre.headers.getSetCookie()[0].split(';')[0],
        'X-CSRF-Token': csrfToken,
      },
      body: JSON.stringify({ email: creds.email, password: creds.password }),
    });
    expect(signIn.status).toBe(200);
    expect((await signIn.json()).account.id).toBe(creds.accountId);
    expect(server.output()).not.toContain(creds.password);
  });
});
