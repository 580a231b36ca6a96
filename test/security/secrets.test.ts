import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import type { TestApp } from '../helpers/app.ts';
import {
  accountHolder,
  dashboard,
  deviceTokens,
  oauthPost,
  PASSWORD,
  signIn,
  startDevice,
  startOAuthApp,
} from '../helpers/oauth.ts';
import { startReceiver, type Receiver } from '../helpers/webhooks.ts';
import { buildEstate } from './estate.ts';

/**
 * OWASP API2/API8 (and DESIGN.md "Secrets"): after a scenario that hands out or takes every
 * kind of secret the API knows — API keys (operator and dashboard), OAuth device and user
 * codes, access and refresh tokens (and a refresh), the dashboard password, session cookie and
 * CSRF token, mailbox passwords (set and changed), protected-directory password, webhook
 * signing secrets (create and rotate), the git push-to-deploy webhook secret, the server SSO
 * link, the root password reset, a hosting database's password and the browser-SSH session token — no secret appears in
 * clear (nor hex- or base64-encoded) in any row of any table, in the data directory's files,
 * or in any log line of the run.
 *
 * Besides the secrets the test sends, every response of the scenario is harvested for fields
 * whose name says secret (`secret`, `password`, `token`, `key`, `*_code`), so a new secret
 * handed out by an existing call is covered too.
 */
let app: TestApp;
let receiver: Receiver;
let work: string;
const secrets = new Map<string, string>();

const SECRET_FIELD = /^(secret|.*password|.*token|key|device_code|user_code|csrfToken)$/i;

/** Collects values of secret-named fields from a response body. */
function harvest(body: unknown, where: string) {
  const walk = (v: unknown, p: string) => {
    if (Array.isArray(v)) {
      for (const [i, x] of v.entries()) walk(x, `${p}[${i}]`);
    } else if (v && typeof v === 'object') {
      for (const [k, x] of Object.entries(v)) {
        if (typeof x === 'string' && SECRET_FIELD.test(k) && x.length >= 8 && !/\*{3}/.test(x))
          secrets.set(`${where} ${p}${k}`, x);
        else walk(x, `${p}${k}.`);
      }
    }
  };
  walk(body, '');
}

function git(cwd: string, ...args: string[]) {
  return execFileSync(
    'git',
    ['-c', 'user.name=Test', '-c', 'user.email=test@example.com', '-c', 'init.defaultBranch=main', ...args],
    { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] },
  ).trim();
}

beforeAll(async () => {
  app = await startOAuthApp({ requestsPerMinute: 1e9, webhookAllowPrivate: true, hostingAllowLocalGit: true });
  receiver = await startReceiver();
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-secrets-'));

  // The account holder: dashboard password, session, CSRF token.
  const holder = await accountHolder(app);
  secrets.set('account password', PASSWORD);
  const session = await signIn(app, holder);
  secrets.set('session cookie', session.cookie.split('=')[1]);
  secrets.set('csrf token', session.csrf);

  // API keys: one from the operator API, one minted in the dashboard.
  const adminKey = await app.admin('POST', `/admin/accounts/${holder.accountId}/api-keys`, {
    scopes: [
      'account:read',
      'servers:read',
      'servers:write',
      'servers:destroy',
      'hosting:read',
      'hosting:write',
      'hosting:manage',
      'mail:read',
      'mail:write',
      'domains:read',
      'domains:write',
      'billing:read',
      'billing:write',
      'tickets:read',
      'tickets:write',
      'webhooks:read',
      'webhooks:write',
    ],
  });
  harvest(adminKey.body, 'admin api key');
  const dashKey = await dashboard(app, session, 'POST', '/keys', { name: 'laptop', scopes: ['servers:read'] });
  expect(dashKey.status).toBe(201);
  harvest(dashKey.body, 'dashboard key');
  const key = adminKey.body.key as string;

  // OAuth device flow: codes, tokens, a refresh (rotation), and a pending authorization.
  const pending = await startDevice(app, 'servers:read');
  harvest(pending, 'pending device authorization');
  const tokens = await deviceTokens(app, session, 'servers:read account:read');
  harvest(tokens, 'device tokens');
  const refreshed = await oauthPost(app, '/oauth/token', {
    grant_type: 'refresh_token',
    refresh_token: tokens.refresh_token,
    client_id: 'svc-cli',
  });
  expect(refreshed.status).toBe(200);
  harvest(refreshed.body, 'refreshed tokens');
  expect((await app.call('GET', '/v1/account', { key: refreshed.body.access_token })).status).toBe(200);

  // Every resource, with mailbox, protected-directory and webhook secrets.
  const E = await buildEstate(app, { accountId: holder.accountId, key, keyId: adminKey.body.id }, receiver);
  for (const [name, value] of Object.entries(E.secrets)) secrets.set(name, value);
  // Every POST sends an Idempotency-Key, so each answer that hands out a secret is also stored.
  let keyed = 0;
  const call = async (method: string, p: string, body?: unknown) => {
    const headers: Record<string, string> = method === 'POST' ? { 'Idempotency-Key': `scenario-${++keyed}` } : {};
    const r = await app.call(method, p, { key, body, headers });
    expect(r.status, `${method} ${p}: ${r.text}`).toBe(200);
    harvest(r.body, `${method} ${p}`);
    return r.body;
  };
  await call('POST', `/v1/webhooks/${E.webhookId}/rotate-secret`);
  secrets.set('mailbox password (changed)', 'Changed-Mailbox-Passw0rd-31a9');
  await call('PATCH', `/v1/mail/mailboxes/${E.mailboxId}/password`, {
    password: secrets.get('mailbox password (changed)'),
  });
  await call('POST', `/v1/hosting/${E.hostingId}/protected-dirs`, {
    path: '/public_html',
    basic_user: 'admin',
    password: 'Second-Dir-Secret-44',
  });
  secrets.set('protected dir password (changed)', 'Second-Dir-Secret-44');

  // Git push-to-deploy: a local bare repository, deployed, then the webhook secret.
  const bare = path.join(work, 'site.git');
  const clone = path.join(work, 'site');
  git(work, 'init', '--bare', bare);
  git(work, 'clone', bare, clone);
  fs.writeFileSync(path.join(clone, 'index.html'), '<h1>git</h1>');
  git(clone, 'add', '.');
  git(clone, 'commit', '-m', 'first');
  git(clone, 'push', 'origin', 'HEAD:main');
  await call('POST', `/v1/hosting/${E.hostingId}/git/deploy`, { repo_url: bare, branch: 'main' });
  await call('POST', `/v1/hosting/${E.hostingId}/git/webhook`);
  const hook = await call('GET', `/v1/hosting/${E.hostingId}/git/webhook`);
  expect(hook.secret).toBeTruthy();

  // Server SSO link (its token is in the URL), root password reset, browser SSH session.
  const sso = await call('POST', `/v1/servers/${E.serverId}/sso`, { next: `/servers/${E.serverId}` });
  secrets.set('sso token', new URL(sso.url).pathname.split('/').pop()!);
  await fetch(sso.url.replace(/^https?:\/\/[^/]+/, app.url), { redirect: 'manual' });
  const reset = await call('POST', `/v1/servers/${E.serverId}/password-reset`);
  // A hosting database's password: set, then used at the account's shell below.
  const dbPassword = await call('POST', `/v1/hosting/${E.hostingId}/databases/${E.databaseName}/password`);
  // The web console: its ticket, redeemed over the socket, and a login there with that password.
  const consoleLink = await call('POST', `/v1/servers/${E.serverId}/console`);
  secrets.set('console ticket', new URL(consoleLink.url).hash.replace(/^#ticket=/, ''));
  await new Promise<void>((resolve, reject) => {
    const ws = new WebSocket(`${app.url.replace('http', 'ws')}/server-console/socket`);
    let printed = '';
    ws.on('open', () => ws.send(JSON.stringify({ ticket: secrets.get('console ticket') })));
    ws.on('message', (d) => {
      printed += String(d);
      if (printed.endsWith('login: ')) ws.send(`root\r${reset.rootPassword}\r`);
      if (printed.includes(':~# ')) ws.close();
    });
    ws.on('close', () => (printed.includes(':~# ') ? resolve() : reject(new Error(`console: ${printed}`))));
    ws.on('error', reject);
  });
  await call('POST', `/v1/hosting/${E.hostingId}/ssh-terminal/access`);
  const terminal = await call('POST', `/v1/hosting/${E.hostingId}/ssh-terminal/launch`);
  const signedIn = await fetch(`${app.url}/ssh-terminal/${terminal.sessionId}/line`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'X-Terminal-Token': terminal.token },
    body: JSON.stringify({ line: `mysql -u ${E.databaseName} -p${dbPassword.password}`, cwd: '/' }),
  });
  expect(((await signedIn.json()) as { output: string }).output).toMatch(/^Welcome/);
  await call('POST', `/v1/hosting/${E.hostingId}/waf/access`);

  // Webhook deliveries ran (signed with the secrets) and the admin token was used throughout.
  await app.running.app.runDueWork();
  secrets.set('admin token', 'test-admin-token-0123456789');
}, 180_000);

afterAll(async () => {
  await receiver?.close();
  await app?.stop();
  if (work) fs.rmSync(work, { recursive: true, force: true });
});

/** The forms a secret could be stored in without being protected. */
function forms(secret: string): string[] {
  const b = Buffer.from(secret, 'utf8');
  return [secret, b.toString('hex'), b.toString('base64'), b.toString('base64url')];
}

function findIn(haystack: string): string[] {
  const hits: string[] = [];
  for (const [name, secret] of secrets) {
    for (const f of forms(secret))
      if (haystack.includes(f)) hits.push(`${name} (${f === secret ? 'clear' : 'encoded'})`);
  }
  return hits;
}

describe('secrets at rest and in logs', () => {
  it('the scenario handed out every kind of secret', () => {
    const names = [...secrets.keys()].join('\n');
    for (const kind of [
      /api key.*key/,
      /dashboard key.*key/,
      /device_code/,
      /user_code/,
      /access_token/,
      /refresh_token/,
      /rotate-secret.*secret/,
      /git\/webhook.*secret/,
      /password-reset.*rootPassword/,
      /databases\/.*\/password.*password/,
      /ssh-terminal\/launch.*token/,
      /sso token/,
      /console ticket/,
      /mailbox password/,
      /protected dir password/i,
      /webhookSecret/,
      /account password/,
      /session cookie/,
    ]) {
      expect(names).toMatch(kind);
    }
    expect(secrets.size).toBeGreaterThan(20);
  });

  it('no row of any table holds one in clear, hex or base64', async () => {
    const prisma = app.running.app.prisma;
    // The keyed calls' answers are stored (sealed): the scan below covers them.
    expect(await prisma.idempotencyRecord.count({ where: { state: 'completed' } })).toBeGreaterThanOrEqual(8);
    const tables = await prisma.$queryRawUnsafe<{ table_name: string }[]>(
      `SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE' ORDER BY table_name`,
    );
    expect(tables.length).toBeGreaterThan(30);
    const hits: string[] = [];
    for (const { table_name } of tables) {
      const rows = await prisma.$queryRawUnsafe<{ r: string }[]>(`SELECT t::text AS r FROM "${table_name}" t`);
      for (const h of findIn(rows.map((x) => x.r).join('\n'))) hits.push(`${table_name}: ${h}`);
    }
    expect(hits).toEqual([]);
  });

  it('no file of the data directory holds one (hosting sites, keys, tokens), outside the database files', () => {
    const hits: string[] = [];
    const walk = (dir: string) => {
      for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
        const p = path.join(dir, e.name);
        if (e.isDirectory()) {
          if (e.name !== 'pgdata' && e.name !== '.git') walk(p);
        } else if (e.isFile() && fs.statSync(p).size < 5_000_000) {
          for (const h of findIn(fs.readFileSync(p).toString('latin1')))
            hits.push(`${path.relative(app.dataDir, p)}: ${h}`);
        }
      }
    };
    walk(app.dataDir);
    expect(hits).toEqual([]);
  });

  it.skipIf(!!process.env.TEST_DATABASE_URL)(
    'no file of the embedded database holds one (stored answers, dead rows, the write-ahead log)',
    async () => {
      await app.running.app.prisma.$executeRawUnsafe('CHECKPOINT');
      const pgdata = path.join(app.dataDir, 'pgdata');
      expect(fs.existsSync(pgdata)).toBe(true);
      const hits: string[] = [];
      const walk = (dir: string) => {
        for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
          const p = path.join(dir, e.name);
          if (e.isDirectory()) walk(p);
          else if (e.isFile())
            for (const h of findIn(fs.readFileSync(p).toString('latin1'))) hits.push(`${e.name}: ${h}`);
        }
      };
      walk(pgdata);
      expect(hits).toEqual([]);
    },
  );

  it('no log line of the run prints one', () => {
    expect(app.logs.length).toBeGreaterThan(40);
    expect(findIn(app.logs.join('\n'))).toEqual([]);
  });
});
