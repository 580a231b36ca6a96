import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../helpers/app.ts';
import { lines, runSvc } from '../helpers/cli.ts';
import { accountHolder, dashboard, signIn, startOAuthApp, type DashboardSession } from '../helpers/oauth.ts';

/**
 * docs/REFERENCE.md (Command line): SERVICE_BASE_URL names the server for `svc login`, `api` and `logout`
 * as for `admin` and `mcp`; a 403 for a missing scope tells the person how to ask for it.
 * The device flow is approved over the dashboard's HTTP API, as the browser page would.
 */
let app: TestApp;
let session: DashboardSession;
let home: string;
let env: Record<string, string>;

/** `svc login` with these arguments, approved as soon as it prints its code. */
async function login(args: string[]) {
  let approved: Promise<unknown> | undefined;
  const run = await runSvc(['login', ...args], env, {
    onStdout: (out) => {
      const userCode = /one-time code: (\S+)/.exec(out)?.[1];
      if (userCode && !approved) approved = dashboard(app, session, 'POST', '/device/approve', { userCode });
    },
  });
  expect(((await approved) as { status: number }).status).toBe(200);
  return run;
}

beforeAll(async () => {
  app = await startOAuthApp();
  session = await signIn(app, await accountHolder(app));
  home = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-login-scope-'));
  env = { HOME: home, XDG_CONFIG_HOME: path.join(home, 'xdg'), SERVICE_BASE_URL: app.url };
});
afterAll(async () => {
  await app?.stop();
  fs.rmSync(home, { recursive: true, force: true });
});

describe('svc login / api / logout with SERVICE_BASE_URL', () => {
  it('logs in to the server SERVICE_BASE_URL names, with only the scopes asked for; no deprecation line', async () => {
    const run = await login(['--scope', 'servers:read']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain(`Logged in to ${app.url} with scopes: servers:read`);
    expect(run.stderr).toBe('');
    const list = await runSvc(['api', 'GET', '/servers'], env);
    expect(list.code, list.stderr).toBe(0);
    expect(JSON.parse(list.stdout).data).toEqual([]);
  }, 60_000);

  it('a 403 for a missing scope names the login that adds it, keeping the scopes held', async () => {
    const destroy = await runSvc(['api', 'DELETE', `/servers/srv_${'0'.repeat(26)}`], env);
    expect(destroy.code).toBe(1);
    expect(JSON.parse(destroy.stdout)).toMatchObject({
      statusCode: 403,
      code: 'FORBIDDEN',
      message: 'This credential lacks the scope "servers:destroy".',
    });
    expect(lines(destroy.stderr)).toEqual([
      `svc: this login lacks the scope "servers:destroy"; sign in again asking for it: svc login --url ${app.url} --scope "servers:read servers:destroy"`,
      `svc: DELETE /v1/servers/srv_${'0'.repeat(26)} answered 403`,
    ]);
    // Any other refusal is only the status line.
    const missing = await runSvc(['api', 'GET', `/servers/srv_${'0'.repeat(26)}`], env);
    expect(lines(missing.stderr)).toEqual([`svc: GET /v1/servers/srv_${'0'.repeat(26)} answered 404`]);
  });

  it('the suggested login works: the opt-in scope is granted when asked for, and the call passes the scope check', async () => {
    const run = await login(['--scope', 'servers:read servers:destroy']);
    expect(run.code, run.stderr).toBe(0);
    const destroy = await runSvc(['api', 'DELETE', `/servers/srv_${'0'.repeat(26)}`], env);
    expect(JSON.parse(destroy.stdout)).toMatchObject({ statusCode: 404 });
    expect(destroy.stderr).not.toContain('lacks the scope');
  }, 60_000);

  it('logout revokes at the server SERVICE_BASE_URL names', async () => {
    const run = await runSvc(['logout'], env);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain(`Logged out of ${app.url}`);
  });
});
