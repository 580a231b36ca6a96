import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'vitest';
import type { Customer, Json, TestApp } from '../helpers/app.ts';
import { activeHosting, domainName } from '../helpers/hosting.ts';
import { proveDomain } from '../helpers/domains.ts';
import { SSH_KEYS } from '../helpers/ssh-keys.ts';
import { createSession } from '../../src/modules/dashboard/sessions.ts';
import { advance, runningServer } from '../helpers/servers.ts';
import type { Receiver } from '../helpers/webhooks.ts';

/**
 * One account owning at least one resource of every kind an operation's path names, made
 * through the API itself (and the operator API where customers cannot create the kind).
 * Used by the scope matrix (real ids for every path parameter), the fuzzer and the secrets scan.
 */
export interface Estate {
  customer: Customer;
  serverId: string;
  serverIp: string;
  snapshotId: string;
  addonId: string;
  poolId: string;
  hostingId: string;
  backupId: string;
  databaseName: string;
  mailDomainId: number;
  mailboxId: number;
  aliasId: number;
  domainId: string;
  mailDomain: string;
  invoiceId: string;
  ticketId: string;
  webhookId: string;
  /** A webhook endpoint on the test's own receiver (127.0.0.1): what a generated webhook points at. */
  webhookUrl: string;
  deliveryId: string;
  sshKeyId: string;
  /** A console session of the account (signed in with the password). */
  sessionId: string;
  /** Secrets handed to or by the API while building (for the secrets scan). */
  secrets: Record<string, string>;
}

async function ok(
  res: Promise<{ status: number; body: Json; text: string }>,
  what: string,
  status = 200,
): Promise<Json> {
  const r = await res;
  expect(r.status, `${what}: ${r.text}`).toBe(status);
  return r.body;
}

export async function buildEstate(app: TestApp, c: Customer, receiver: Receiver): Promise<Estate> {
  const key = c.key;
  const call = (method: string, p: string, body?: unknown) => app.call(method, p, { key, body });
  const secrets: Record<string, string> = {};

  const serverId = await runningServer(app, c);
  // Under load (parallel files, PostgreSQL) provisioning can need another tick of the simulated clock.
  for (let i = 0; i < 5 && (await call('GET', `/v1/servers/${serverId}`)).body.status !== 'running'; i++)
    await advance(app, 120);
  const ips = (await ok(call('GET', `/v1/servers/${serverId}/ips`), 'ips')).data;
  if (!ips.length)
    throw new Error(
      `server ${serverId} has no addresses: ${JSON.stringify((await call('GET', `/v1/servers/${serverId}`)).body)}`,
    );
  const serverIp: string = ips[0].ip;
  const snapshot = await ok(
    call('POST', `/v1/servers/${serverId}/snapshots`, { name: 'before-upgrade', description: 'fixture' }),
    'snapshot',
  );
  await advance(app, 120);
  const addon = await ok(call('POST', `/v1/servers/${serverId}/addons`, { addonId: 'addon-ipv4-1' }), 'addon');
  await ok(call('PUT', `/v1/servers/${serverId}/ips/${serverIp}/ptr`, { hostname: 'mail.example.com' }), 'ptr');

  const pool = await ok(
    call('POST', '/v1/pools', { productId: 'pool-fra1', label: 'cluster', vcpu: 8, ram2gb: 8, disk100: 2, ip16: 1 }),
    'pool',
  );
  await advance(app, 180);

  const hostingId = await activeHosting(app, c);
  await ok(
    call('PUT', `/v1/hosting/${hostingId}/files`, { path: '/public_html/index.html', content: '<h1>hello</h1>' }),
    'file',
  );
  await ok(
    call('PUT', `/v1/hosting/${hostingId}/cron`, {
      jobs: [{ schedule: '*/5 * * * *', command: 'php /home/site/cron.php' }],
    }),
    'cron',
  );
  secrets.protectedDirPassword = 'Pr0tected-Dir-Secret-9d1f';
  await ok(
    call('POST', `/v1/hosting/${hostingId}/protected-dirs`, {
      path: '/public_html',
      basic_user: 'admin',
      password: secrets.protectedDirPassword,
    }),
    'protected dir',
  );
  const database = await ok(call('POST', `/v1/hosting/${hostingId}/databases`, { suffix: 'shop' }), 'database');
  const backup = await ok(call('POST', `/v1/hosting/${hostingId}/backups`), 'backup');

  const mailName = domainName('mail');
  await proveDomain(app, c.accountId, mailName);
  const mailDomain = await ok(call('POST', '/v1/mail/domains', { domain: mailName }), 'mail domain');
  secrets.mailboxPassword = 'Mailbox-Secret-Passw0rd-7c2e';
  const mailbox = await ok(
    call('POST', '/v1/mail/mailboxes', {
      domain_id: mailDomain.id,
      local_part: 'ada',
      password: secrets.mailboxPassword,
      quota_mb: 1024,
    }),
    'mailbox',
  );
  const alias = await ok(
    call('POST', '/v1/mail/aliases', {
      domain_id: mailDomain.id,
      source_local: 'info',
      destination: 'ada@example.org',
    }),
    'alias',
  );

  const domain = (
    await ok(
      app.admin('POST', `/admin/accounts/${c.accountId}/domains`, {
        domain: domainName('reg'),
        periodYears: 1,
        charge: true,
      }),
      'domain',
      201,
    )
  ).domain;
  const invoice = await ok(
    app.admin('POST', `/admin/accounts/${c.accountId}/invoices`, {
      items: [{ description: 'Consulting', amountUsdCents: 1200 }],
    }),
    'invoice',
    201,
  );

  const webhookUrl = `${receiver.url}/estate`;
  const hook = await ok(
    call('POST', '/v1/webhooks', { url: webhookUrl, events: ['*'], description: 'fixture' }),
    'webhook',
  );
  secrets.webhookSecret = hook.secret;
  const ticket = await ok(call('POST', '/v1/tickets', { subject: 'Fixture', message: 'Hello support' }), 'ticket');
  await app.running.app.runDueWork();
  const deliveries = await ok(call('GET', `/v1/webhooks/${hook.id}/deliveries`), 'deliveries');
  expect(deliveries.data.length).toBeGreaterThan(0);
  // With a key of its own: the estate's customer key may not hold account:write.
  const writer = await ok(
    app.admin('POST', `/admin/accounts/${c.accountId}/api-keys`, { scopes: ['account:write'] }),
    'key',
    201,
  );
  const sshKey = await ok(
    app.call('POST', '/v1/account/ssh-keys', {
      key: writer.key,
      body: { name: 'laptop', public_key: SSH_KEYS.ED25519.line },
    }),
    'ssh key',
  );
  // A password sign-in's session, made as the sign-in makes it (the estate's accounts have no password).
  const { session } = await createSession(app.running.app.prisma, c.accountId, app.running.app.clock.now(), {
    password: true,
  });

  return {
    customer: c,
    serverId,
    serverIp,
    snapshotId: snapshot.id,
    addonId: addon.id,
    poolId: pool.id,
    hostingId,
    backupId: backup.id,
    databaseName: database.name,
    mailDomainId: mailDomain.id,
    mailDomain: mailDomain.domain,
    mailboxId: mailbox.id,
    aliasId: alias.id,
    domainId: domain.id,
    invoiceId: invoice.id,
    ticketId: ticket.id,
    webhookId: hook.id,
    webhookUrl,
    deliveryId: deliveries.data[0].id,
    sshKeyId: sshKey.id,
    sessionId: session.id,
    secrets,
  };
}

/**
 * What an account owns, as a digest per table: every row of every table with an `accountId`
 * column (API keys aside: using a key is not a change of state), the account row, and the
 * files of its hosting accounts on disk. Equal states before and after mean nothing changed
 * (and a difference names the table).
 */
const stateQueries = new WeakMap<object, string>();

export async function accountState(app: TestApp, accountId: string): Promise<Record<string, string>> {
  const prisma = app.running.app.prisma;
  let sql = stateQueries.get(app);
  if (!sql) {
    const tables = await prisma.$queryRawUnsafe<{ table_name: string }[]>(
      `SELECT table_name FROM information_schema.columns WHERE table_schema = 'public' AND column_name = 'accountId' AND table_name <> 'ApiKey' ORDER BY table_name`,
    );
    // One statement for all tables: cheap enough to run around every fuzz case.
    sql = [
      ...tables.map(
        ({ table_name }) =>
          `SELECT '${table_name}' AS t, md5(coalesce(string_agg(x::text, '|' ORDER BY x::text), '')) AS d FROM "${table_name}" x WHERE "accountId"::text = $1`,
      ),
      `SELECT 'Account' AS t, md5(x::text) AS d FROM "Account" x WHERE id::text = $1`,
    ].join(' UNION ALL ');
    stateQueries.set(app, sql);
  }
  const rows = await prisma.$queryRawUnsafe<{ t: string; d: string }[]>(sql, accountId);
  const out: Record<string, string> = Object.fromEntries(rows.map((r) => [r.t, r.d]));
  const ids = await prisma.hostingAccount.findMany({ where: { accountId }, select: { id: true } });
  for (const { id } of ids) out[`files:${id}`] = treeOf(path.join(app.dataDir, 'hosting', id)); // the listing itself, so a failure names the file
  return out;
}

/**
 * Checks that a refusal changed nothing, reading the state once per case rather than twice: the
 * state read after a refusal is the next case's "before", since nothing ran in between (tests
 * run without background jobs). After anything else the next case reads it afresh.
 */
export function refusalChecker(app: TestApp, accountId: string) {
  let known: Record<string, string> | undefined;
  const read = () => accountState(app, accountId);
  return {
    /** The state before a case. */
    before: async () => {
      const state = known ?? (await read());
      known = undefined;
      return state;
    },
    /** After a refusal: the tables whose digest differs from `before` (none when nothing changed). */
    changedSince: async (before: Record<string, string>): Promise<string[]> => {
      known = await read();
      const after = known;
      return [...new Set([...Object.keys(before), ...Object.keys(after)])].filter((k) => after[k] !== before[k]);
    },
  };
}

/** The simulated site's own traffic (its access and error logs, and their cursor) moves with time: not the account's state. */
const SIMULATED_TRAFFIC = /\/home\/logs\/|\/private\/log-cursor$/;

function treeOf(dir: string): string {
  if (!fs.existsSync(dir)) return '';
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const p = path.join(d, e.name);
      if (SIMULATED_TRAFFIC.test(p)) continue;
      if (e.isDirectory()) {
        out.push(`${p}/`);
        walk(p);
      } else {
        const st = fs.statSync(p);
        out.push(`${p} ${st.size} ${st.mtimeMs}`);
      }
    }
  };
  walk(dir);
  return out.join('\n');
}
