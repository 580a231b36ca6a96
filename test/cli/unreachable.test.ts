import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lines, runSvc } from '../helpers/cli.ts';
import { freePort } from '../helpers/process.ts';

/**
 * docs/REFERENCE.md (Command line): every svc command that cannot reach its server says so in one line,
 * `svc: cannot reach <origin> (connection refused)`, and exits 1 — no stack, whichever command.
 * The server here is a port nothing listens on.
 */
let home: string;
let base: string;
let env: Record<string, string>;

/** A stored login for `base`, as svc login writes it (docs/REFERENCE.md: Command line, Tokens). */
function storeLogin(expiresAt: string) {
  const dir = path.join(home, 'xdg', 'svc');
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const creds = {
    url: base,
    clientId: 'svc-cli',
    tokenEndpoint: `${base}/oauth/token`,
    revocationEndpoint: `${base}/oauth/revoke`,
    accessToken: 'svc_at_x',
    refreshToken: 'svc_rt_x',
    scope: 'servers:read',
    expiresAt,
  };
  fs.writeFileSync(path.join(dir, 'credentials.json'), JSON.stringify(creds), { mode: 0o600 });
}

beforeAll(async () => {
  home = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-unreachable-'));
  base = `http://127.0.0.1:${await freePort()}`;
  env = {
    HOME: home,
    XDG_CONFIG_HOME: path.join(home, 'xdg'),
    SERVICE_BASE_URL: base,
    ADMIN_TOKEN: 'any-token',
    SERVICE_API_KEY: 'svc_any',
    DATA_DIR: path.join(home, 'data'),
  };
});
afterAll(() => fs.rmSync(home, { recursive: true, force: true }));

describe('a server that cannot be reached', () => {
  const later = () => new Date(Date.now() + 3600_000).toISOString();
  const cases: [string, string[], () => void][] = [
    ['login', ['login'], () => {}],
    ['api (token still fresh: the call itself)', ['api', 'GET', '/servers'], () => storeLogin(later())],
    [
      'api (token expiring: the refresh first)',
      ['api', 'GET', '/servers'],
      () => storeLogin(new Date(Date.now() - 1000).toISOString()),
    ],
    ['admin', ['admin', 'GET', '/catalogue'], () => {}],
    ['mcp', ['mcp'], () => {}],
  ];
  it.each(cases)('%s: one line naming the server, exit 1', async (_name, args, arrange) => {
    arrange();
    const run = await runSvc(args, env);
    expect(run.code, run.stderr).toBe(1);
    expect(lines(run.stderr)).toEqual([`svc: cannot reach ${base} (connection refused)`]);
    expect(run.stdout).not.toMatch(/TypeError|\n\s+at /);
  });

  it('logout: the same line, then what became of the stored tokens (deleted, not revoked), exit 1', async () => {
    storeLogin(later());
    const file = path.join(home, 'xdg', 'svc', 'credentials.json');
    const run = await runSvc(['logout'], env);
    expect(run.code).toBe(1);
    const [line, ...more] = lines(run.stderr);
    expect(more).toEqual([]);
    expect(line).toMatch(
      new RegExp(
        `^svc: cannot reach ${base} \\(connection refused\\); deleted .*credentials\\.json all the same: the tokens were not revoked and work until they expire\\.$`,
      ),
    );
    expect(fs.existsSync(file)).toBe(false);
  });

  it('the deprecated SVC_URL still names the server, with one deprecation line first', async () => {
    const { SERVICE_BASE_URL: _, ...rest } = env;
    for (const args of [['login'], ['admin', 'GET', '/catalogue'], ['mcp']]) {
      const run = await runSvc(args, { ...rest, SVC_URL: base });
      expect(run.code, args.join(' ')).toBe(1);
      expect(lines(run.stderr), args.join(' ')).toEqual([
        'svc: SVC_URL is deprecated; set SERVICE_BASE_URL',
        `svc: cannot reach ${base} (connection refused)`,
      ]);
    }
    // Both set: SERVICE_BASE_URL wins, and the line says SVC_URL is ignored.
    const run = await runSvc(['login'], { ...env, SVC_URL: 'http://127.0.0.1:9' });
    expect(lines(run.stderr)).toEqual([
      'svc: SVC_URL is deprecated; set SERVICE_BASE_URL (it is set, so SVC_URL is ignored)',
      `svc: cannot reach ${base} (connection refused)`,
    ]);
  });
});
