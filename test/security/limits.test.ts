import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GRAPHQL_LIMITS } from '../../src/http/graphql/graphql.ts';
import { NAMESERVERS_MAX } from '../../src/modules/domains/service.ts';
import { READ_MAX_BYTES, WRITE_MAX_BYTES } from '../../src/modules/hosting/files.ts';
import { CRON_COMMAND_MAX, CRON_MAX_JOBS, LOG_LINES_MAX, PASSWORD_MAX_BYTES } from '../../src/modules/hosting/panel.ts';
import { PASSWORD_MAX } from '../../src/modules/mail/service.ts';
import { MAX_IP_CHANGES } from '../../src/modules/pools/members.ts';
import { MESSAGE_MAX, SUBJECT_MAX } from '../../src/modules/tickets/service.ts';
import { MAX_EVENTS } from '../../src/modules/webhooks/service.ts';
import { PAGE_MAX } from '../../src/core/paging.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { gql } from '../helpers/graphql.ts';
import { upload } from '../helpers/hosting.ts';
import { callTool, mcpClient } from '../helpers/mcp.ts';
import { expectError } from '../helpers/servers.ts';
import { startReceiver, type Receiver } from '../helpers/webhooks.ts';
import { accountState, buildEstate, type Estate } from './estate.ts';

/**
 * OWASP API4 (unrestricted resource consumption): every input limit of docs/REFERENCE.md → Security,
 * one test each, at the limit (accepted) and one past it (refused with the error object,
 * nothing changed).
 */
const UPLOAD_LIMIT = 64 * 1024;
const BODY_LIMIT = 1024 * 1024;

let app: TestApp;
let receiver: Receiver;
let E: Estate;
let key: string;

beforeAll(async () => {
  app = await startTestApp({
    requestsPerMinute: 1e9,
    webhookAllowPrivate: true,
    hostingUploadLimitBytes: UPLOAD_LIMIT,
  });
  receiver = await startReceiver();
  E = await buildEstate(app, await app.customer({ walletBalanceUsdCents: 1_000_000 }), receiver);
  key = E.customer.key;
}, 120_000);
afterAll(async () => {
  await receiver?.close();
  await app?.stop();
});

const call = (method: string, p: string, body?: unknown) => app.call(method, p, { key, body });

/** Runs a refused request and checks the account did not change. */
async function refused(method: string, p: string, body: unknown, status: number, message: RegExp) {
  const before = await accountState(app, E.customer.accountId);
  expectError(await call(method, p, body), status, message);
  expect(await accountState(app, E.customer.accountId)).toEqual(before);
}

describe('request size', () => {
  it(`JSON body over ${BODY_LIMIT} bytes → 413 on REST, GraphQL and MCP (and the operator API)`, async () => {
    const big = JSON.stringify({ subject: 'x', message: 'a'.repeat(BODY_LIMIT) });
    const rest = await app.call('POST', '/v1/tickets', {
      key,
      raw: big,
      headers: { 'Content-Type': 'application/json' },
    });
    expectError(rest, 413, /larger than 1048576 bytes/);
    const graphql = await app.call('POST', '/graphql', {
      key,
      raw: JSON.stringify({ query: `{ account { id } }`, variables: { x: 'a'.repeat(BODY_LIMIT) } }),
      headers: { 'Content-Type': 'application/json' },
    });
    expect(graphql.status).toBe(413);
    expect(graphql.body.errors[0].extensions).toMatchObject({ code: 'PAYLOAD_TOO_LARGE', status: 413 });
    const mcp = await app.call('POST', '/mcp', {
      key,
      raw: big,
      headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
    });
    expectError(mcp, 413);
    const admin = await app.call('POST', '/admin/accounts', {
      raw: big,
      headers: { 'Content-Type': 'application/json', Authorization: 'Bearer test-admin-token-0123456789' },
    });
    expectError(admin, 413);
    // A body just under the limit is read (and then judged on its fields).
    expectError(
      await app.call('POST', '/v1/tickets', {
        key,
        raw: JSON.stringify({ subject: 'x', message: 'a'.repeat(BODY_LIMIT - 100) }),
        headers: { 'Content-Type': 'application/json' },
      }),
      400,
      /message must be 1 to 20000/,
    );
  });

  it('a request line and headers over 16 KB → 431 with the error object (node refuses it before any handler)', async () => {
    const res = await app.call('GET', `/v1/servers?${'a'.repeat(20_000)}=1`, { key });
    expectError(res, 431, /larger than 16 KB/);
    const header = await app.call('GET', '/v1/account', { key, headers: { 'X-Big': 'b'.repeat(20_000) } });
    expectError(header, 431);
  });

  it(`file upload over ${UPLOAD_LIMIT} bytes (HOSTING_UPLOAD_LIMIT_BYTES) → 413, nothing written`, async () => {
    const before = await accountState(app, E.customer.accountId);
    // Just over, 64 KB over (this hung for good before: the parser stalled on its destroyed file
    // stream) and megabytes over (cut off once the body passes twice the limit + 1 MiB).
    for (const size of [UPLOAD_LIMIT + 1, UPLOAD_LIMIT + 65_536, UPLOAD_LIMIT + 200_000, 3 * 1024 * 1024]) {
      const res = await upload(app, key, E.hostingId, {
        path: '/public_html',
        name: 'big.bin',
        data: new Uint8Array(size),
      });
      expectError(res, 413, /upload limit of 65536 bytes/);
    }
    // The cut-off upload's temporary file is removed just after the answer (it stayed for good before).
    const tmp = path.join(app.dataDir, 'hosting', E.hostingId, 'tmp');
    for (let i = 0; i < 50 && fs.readdirSync(tmp).length; i++) await new Promise((r) => setTimeout(r, 50));
    expect(fs.readdirSync(tmp)).toEqual([]);
    expect(await accountState(app, E.customer.accountId)).toEqual(before);
    expect(
      (
        await upload(app, key, E.hostingId, {
          path: '/public_html',
          name: 'ok.bin',
          data: new Uint8Array(UPLOAD_LIMIT),
        })
      ).status,
    ).toBe(200);
  });

  it(`files/read returns at most ${READ_MAX_BYTES} bytes (download larger files); files PUT content ≤ ${WRITE_MAX_BYTES} bytes`, async () => {
    const file = path.join(app.dataDir, 'hosting', E.hostingId, 'home', 'public_html', 'big.txt');
    fs.writeFileSync(file, 'a'.repeat(READ_MAX_BYTES));
    expect((await call('GET', `/v1/hosting/${E.hostingId}/files/read?path=/public_html/big.txt`)).status).toBe(200);
    fs.appendFileSync(file, 'a');
    expectError(
      await call('GET', `/v1/hosting/${E.hostingId}/files/read?path=/public_html/big.txt`),
      400,
      new RegExp(`more than the ${READ_MAX_BYTES} bytes files/read returns`),
    );
    expect(
      (
        await fetch(`${app.url}/v1/hosting/${E.hostingId}/files/download?path=/public_html/big.txt`, {
          headers: { Authorization: `Bearer ${key}` },
        })
      ).status,
    ).toBe(200);
    // The content limit equals the JSON body limit, so the body limit refuses first.
    await refused(
      'PUT',
      `/v1/hosting/${E.hostingId}/files`,
      { path: '/public_html/c.txt', content: 'a'.repeat(WRITE_MAX_BYTES + 1) },
      413,
      /larger than 1048576 bytes/,
    );
  });
});

describe('string lengths', () => {
  it('snapshot name 1–64, description ≤ 500', async () => {
    await refused('POST', `/v1/servers/${E.serverId}/snapshots`, { name: 'n'.repeat(65) }, 400, /name must be 1 to 64/);
    await refused(
      'POST',
      `/v1/servers/${E.serverId}/snapshots`,
      { name: 'ok', description: 'd'.repeat(501) },
      400,
      /description must be at most 500/,
    );
  });

  it(`ticket subject ≤ ${SUBJECT_MAX}, message ≤ ${MESSAGE_MAX}`, async () => {
    await refused(
      'POST',
      '/v1/tickets',
      { subject: 's'.repeat(SUBJECT_MAX + 1), message: 'm' },
      400,
      /subject must be 1 to 200/,
    );
    await refused(
      'POST',
      '/v1/tickets',
      { subject: 's', message: 'm'.repeat(MESSAGE_MAX + 1) },
      400,
      /message must be 1 to 20000/,
    );
    await refused(
      'POST',
      `/v1/tickets/${E.ticketId}/reply`,
      { body: 'm'.repeat(MESSAGE_MAX + 1) },
      400,
      /body must be 1 to 20000/,
    );
  });

  it('webhook url ≤ 2,048, description ≤ 500', async () => {
    await refused(
      'POST',
      '/v1/webhooks',
      { url: `${receiver.url}/${'u'.repeat(2048)}`, events: ['*'] },
      400,
      /at most 2048/,
    );
    await refused(
      'POST',
      '/v1/webhooks',
      { url: `${receiver.url}/x`, events: ['*'], description: 'd'.repeat(501) },
      400,
      /at most 500/,
    );
  });

  it(`cron command ≤ ${CRON_COMMAND_MAX}; protected-dir password ≤ ${PASSWORD_MAX_BYTES} bytes; mailbox password ≤ ${PASSWORD_MAX}; PTR hostname ≤ 253`, async () => {
    await refused(
      'PUT',
      `/v1/hosting/${E.hostingId}/cron`,
      { jobs: [{ schedule: '* * * * *', command: 'c'.repeat(CRON_COMMAND_MAX + 1) }] },
      400,
      /command must be 1 to 1000/,
    );
    await refused(
      'POST',
      `/v1/hosting/${E.hostingId}/protected-dirs`,
      { path: '/public_html', basic_user: 'a', password: 'é'.repeat(37) },
      400,
      /8 to 72 bytes/,
    );
    await refused(
      'PATCH',
      `/v1/mail/mailboxes/${E.mailboxId}/password`,
      { password: 'p'.repeat(PASSWORD_MAX + 1) },
      400,
      /10 to 128/,
    );
    await refused(
      'PUT',
      `/v1/servers/${E.serverId}/ips/${E.serverIp}/ptr`,
      { hostname: `${'a.'.repeat(127)}com` },
      400,
      /at most 253/,
    );
  });
});

describe('list lengths', () => {
  it(`nameservers ≤ ${NAMESERVERS_MAX}`, async () => {
    await refused(
      'PATCH',
      `/v1/domains/${E.domainId}`,
      { nameservers: Array.from({ length: NAMESERVERS_MAX + 1 }, (_, i) => `ns${i}.example.com`) },
      400,
      /2 to 13 host names/,
    );
  });

  it(`cron jobs ≤ ${CRON_MAX_JOBS}`, async () => {
    await refused(
      'PUT',
      `/v1/hosting/${E.hostingId}/cron`,
      { jobs: Array.from({ length: CRON_MAX_JOBS + 1 }, () => ({ schedule: '* * * * *', command: 'true' })) },
      400,
      /at most 50 jobs/,
    );
  });

  it(`pool IP apply changes ≤ ${MAX_IP_CHANGES}`, async () => {
    await refused(
      'POST',
      `/v1/pools/${E.poolId}/ips/apply`,
      { changes: Array.from({ length: MAX_IP_CHANGES + 1 }, () => ({ ip: '198.18.0.1', serverId: null })) },
      400,
      /1 to 1024 entries/,
    );
  });

  it(`webhook events ≤ ${MAX_EVENTS} (new: the list had no maximum)`, async () => {
    await refused(
      'POST',
      '/v1/webhooks',
      { url: `${receiver.url}/x`, events: Array.from({ length: MAX_EVENTS + 1 }, () => 'ticket.created') },
      400,
      /at most 50 kinds/,
    );
    await refused(
      'PATCH',
      `/v1/webhooks/${E.webhookId}`,
      { events: Array.from({ length: 10_000 }, (_, i) => `junk.${i}`) },
      400,
      /at most 50 kinds/,
    );
    expect(
      (
        await call('POST', '/v1/webhooks', {
          url: `${receiver.url}/y`,
          events: Array.from({ length: MAX_EVENTS }, () => 'ticket.created'),
        })
      ).status,
    ).toBe(200);
  });
});

describe('pagination maxima', () => {
  it(`cursor lists: limit 1–${PAGE_MAX}; invoices 1–100; delivery log 1–100; log lines 1–${LOG_LINES_MAX}`, async () => {
    for (const p of [
      '/v1/servers',
      '/v1/hosting',
      '/v1/domains',
      '/v1/tickets',
      '/v1/webhooks',
      '/v1/billing/wallet/transactions',
    ]) {
      expect((await call('GET', `${p}?limit=${PAGE_MAX}`)).status, p).toBe(200);
      expectError(await call('GET', `${p}?limit=${PAGE_MAX + 1}`), 400, /limit/);
      expectError(await call('GET', `${p}?limit=0`), 400, /limit/);
    }
    expect((await call('GET', '/v1/billing/invoices?limit=100')).status).toBe(200);
    expectError(await call('GET', '/v1/billing/invoices?limit=101'), 400, /limit/);
    expectError(await call('GET', `/v1/webhooks/${E.webhookId}/deliveries?limit=101`), 400, /limit/);
    expectError(
      await call('GET', `/v1/hosting/${E.hostingId}/logs?kind=access&lines=${LOG_LINES_MAX + 1}`),
      400,
      /lines must be an integer from 1 to 1000/,
    );
  });
});

describe('text the database cannot store (found by the fuzzer: 500 before)', () => {
  it('U+0000 in a path parameter, query value or body field → 400 naming it, on every surface', async () => {
    await refused(
      'DELETE',
      `/v1/servers/${E.serverId}/snapshots/%00`,
      undefined,
      400,
      /snapshotId must not contain the NUL character/,
    );
    await refused(
      'DELETE',
      `/v1/hosting/${E.hostingId}/databases/x%00`,
      undefined,
      400,
      /name must not contain the NUL character/,
    );
    expectError(await call('GET', `/v1/hosting/${E.hostingId}/files?path=/a%00`), 400, /path must not contain the NUL/);
    await refused(
      'POST',
      '/v1/tickets',
      { subject: 'a\u0000b', message: 'm' },
      400,
      /subject must not contain the NUL/,
    );
    await refused(
      'PUT',
      `/v1/hosting/${E.hostingId}/cron`,
      { jobs: [{ schedule: '* * * * *', command: 'a\u0000' }] },
      400,
      /jobs\[0\]\.command must not contain the NUL/,
    );
    expectError(
      await call('GET', `/v1/hosting/${E.hostingId}/backups/x%00/download`),
      400,
      /bid must not contain the NUL/,
    );
    expectError(
      await call('GET', `/v1/hosting/${E.hostingId}/files/download?path=/a%00`),
      400,
      /path must not contain the NUL/,
    );
    const g = await gql(app, 'query($id: ID!) { server(id: $id) { id } }', { key, variables: { id: 'srv_\u0000' } });
    expect(g.status).toBe(400);
    expect(g.body.errors[0].message).toMatch(/id must not contain the NUL/);
    const literal = await gql(app, '{ server(id: "srv_\\u0000") { id } }', { key });
    expect(literal.status).toBe(400);
    const mcp = await mcpClient(app.url, key);
    const res = await callTool(mcp, 'server_snapshot_delete', { id: E.serverId, snapshotId: '\u0000' });
    expect(res.structuredContent).toMatchObject({ statusCode: 400, message: expect.stringMatching(/NUL/) });
    await mcp.close();
  });
});

describe('a multipart body cut short (found by the fuzzer: an uncaught exception, which ends the process)', () => {
  it('answers 400 and throws nothing out of the request', async () => {
    const uncaught: unknown[] = [];
    const listener = (err: unknown) => uncaught.push(err);
    process.on('uncaughtException', listener);
    try {
      for (const body of [
        '--x\r\nContent-Disposition: form-data; name="file"; filename="a.txt"\r\n\r\nabc',
        '--x\r\nContent-Disposition: form-data; name="other"; filename="b.txt"\r\n\r\nabc',
        'junk',
      ]) {
        const res = await fetch(`${app.url}/v1/hosting/${E.hostingId}/files/upload`, {
          method: 'POST',
          headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'multipart/form-data; boundary=x' },
          body,
        });
        expect(res.status).toBe(400);
        expect(await res.json()).toMatchObject({
          statusCode: 400,
          message: expect.stringMatching(/multipart body is malformed|no "file" field/),
        });
      }
      await new Promise((r) => setTimeout(r, 300));
      expect(uncaught).toEqual([]);
    } finally {
      process.off('uncaughtException', listener);
    }
  });
});

describe('paths with a trailing slash (found by the fuzzer: an empty 404 before)', () => {
  it('are the same route as without it, with JSON answers', async () => {
    const list = await call('GET', '/v1/servers/');
    expect(list.status).toBe(200);
    expect(list.body.data.map((s: { id: string }) => s.id)).toEqual([E.serverId]);
    expect((await call('GET', `/v1/tickets/${E.ticketId}/`)).body.id).toBe(E.ticketId);
    expectError(await call('GET', '/v1/servers/srv_00000000000000000000000000/'), 404);
    expectError(await call('GET', '/v1/nothing-here/'), 404);
  });
});

describe('GraphQL', () => {
  it('documents: depth, cost, aliases, directives and tokens are limited (test/security/graphql-limits.test.ts)', () => {
    expect(GRAPHQL_LIMITS).toEqual({
      maxDepth: 12,
      maxCost: 1000,
      maxPagedCost: 250_000,
      maxAliases: 15,
      maxDirectives: 10,
      maxTokens: 2000,
    });
  });
});
