import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Customer, type Json, startTestApp, type TestApp } from '../helpers/app.ts';
import { gql } from '../helpers/graphql.ts';
import { callTool, mcpClient } from '../helpers/mcp.ts';
import { runningServer } from '../helpers/servers.ts';

/**
 * The attack of issue 40, item 1: an Idempotency-Key is not a credential. A key of the same
 * account without the scope that sends someone's Idempotency-Key gets a 403 and nothing stored;
 * a key with the scope runs its own request (never someone else's answer); a refusal is never
 * stored as the key's result, so the owner's later request with that key runs. On REST, GraphQL
 * and MCP, which share one execution pipeline.
 */
let app: TestApp;
let owner: Customer;
let serverId: string;

async function keyOf(c: Customer, scopes: string[]): Promise<string> {
  const minted = await app.admin('POST', `/admin/accounts/${c.accountId}/api-keys`, { scopes });
  expect(minted.status, minted.text).toBe(201);
  return minted.body.key;
}

const reset = (key: string, idempotencyKey: string) =>
  app.call('POST', `/v1/servers/${serverId}/password-reset`, {
    key,
    headers: { 'Idempotency-Key': idempotencyKey },
  });

const records = () => app.running.app.prisma.idempotencyRecord.findMany({ where: { accountId: owner.accountId } });

beforeAll(async () => {
  app = await startTestApp({ requestsPerMinute: 1e9 });
  owner = await app.customer();
  serverId = await runningServer(app, owner);
}, 120_000);

afterAll(async () => {
  await app?.stop();
});

describe("Idempotency-Key: a replay obeys the credential's scopes", () => {
  it("a key without the scope that sends the owner's Idempotency-Key gets 403, not the root password", async () => {
    const first = await reset(owner.key, 'nightly-2026-11-28');
    expect(first.status, first.text).toBe(200);
    const password = first.body.rootPassword as string;
    expect(password).toMatch(/^[A-Za-z0-9]{24}$/);
    const stored = (await records()).length;

    const reader = await keyOf(owner, ['tickets:read']);
    const stolen = await reset(reader, 'nightly-2026-11-28');
    expect(stolen.status).toBe(403);
    expect(stolen.body).toEqual({
      statusCode: 403,
      message: 'This credential lacks the scope "servers:write".',
      error: 'Forbidden',
      code: 'FORBIDDEN',
    });
    expect(stolen.headers.get('idempotent-replayed')).toBeNull();
    expect(stolen.text).not.toContain(password);
    expect((await records()).length).toBe(stored);

    // The owner's own repeat is still the replay of its own answer.
    const again = await reset(owner.key, 'nightly-2026-11-28');
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body.rootPassword).toBe(password);
  });

  it('another key with the scope runs its own request under the same Idempotency-Key', async () => {
    const first = await reset(owner.key, 'job-reset-1');
    expect(first.status).toBe(200);
    const writer = await keyOf(owner, ['servers:write']);
    const own = await reset(writer, 'job-reset-1');
    expect(own.status, own.text).toBe(200);
    expect(own.headers.get('idempotent-replayed')).toBeNull();
    expect(own.body.rootPassword).not.toBe(first.body.rootPassword);
    // Each credential replays only its own answer.
    expect((await reset(writer, 'job-reset-1')).body.rootPassword).toBe(own.body.rootPassword);
    expect((await reset(owner.key, 'job-reset-1')).body.rootPassword).toBe(first.body.rootPassword);
  });

  it("a refused attempt is not stored: the owner's later request with that key runs", async () => {
    const reader = await keyOf(owner, ['tickets:read']);
    const refused = await reset(reader, 'planted-key');
    expect(refused.status).toBe(403);
    expect((await records()).some((r) => r.key === 'planted-key')).toBe(false);
    const real = await reset(owner.key, 'planted-key');
    expect(real.status, real.text).toBe(200);
    expect(real.headers.get('idempotent-replayed')).toBeNull();
    expect(real.body.rootPassword).toMatch(/^[A-Za-z0-9]{24}$/);
  });

  it('a rate-limited or unauthenticated attempt stores nothing either', async () => {
    const none = await app.call('POST', `/v1/servers/${serverId}/password-reset`, {
      headers: { 'Idempotency-Key': 'anonymous-key' },
    });
    expect(none.status).toBe(401);
    expect((await records()).some((r) => r.key === 'anonymous-key')).toBe(false);
  });

  it('GraphQL: the same refusal before any stored answer, with the record left alone', async () => {
    const query = `mutation($id: ID!) { serverPasswordReset(id: $id) { rootPassword } }`;
    const first = await gql(app, query, {
      key: owner.key,
      variables: { id: serverId },
      headers: { 'Idempotency-Key': 'gql-key' },
    });
    expect(first.status, first.text).toBe(200);
    const password = first.body.data.serverPasswordReset.rootPassword;
    const reader = await keyOf(owner, ['tickets:read', 'servers:read']);
    const stolen = await gql(app, query, {
      key: reader,
      variables: { id: serverId },
      headers: { 'Idempotency-Key': 'gql-key' },
    });
    expect(stolen.status).toBe(403);
    expect(stolen.body.errors[0].message).toBe('This credential lacks the scope "servers:write".');
    expect(stolen.body.data ?? null).toBeNull();
    expect(stolen.text).not.toContain(password);
    expect(stolen.headers.get('idempotent-replayed')).toBeNull();
  });

  it('MCP: a tool call with the idempotency_key of a call made by another credential runs as its own', async () => {
    const writer = await keyOf(owner, ['tickets:read', 'tickets:write']);
    const reader = await keyOf(owner, ['tickets:read']);
    const a = await mcpClient(app.url, owner.key);
    const b = await mcpClient(app.url, writer);
    const c = await mcpClient(app.url, reader);
    try {
      const args = { subject: 'Disk alert', message: 'Disk at 91 %', idempotency_key: 'mcp-key' };
      const first = await callTool(a, 'ticket_create', args);
      expect(first.isError, JSON.stringify(first)).toBeFalsy();
      const mine = await callTool(b, 'ticket_create', args);
      expect(mine.isError, JSON.stringify(mine)).toBeFalsy();
      expect((mine.structuredContent as Json).id).not.toBe((first.structuredContent as Json).id);
      // The reader is not offered the tool, and calling it anyway is refused, not replayed.
      const refused = await callTool(c, 'ticket_create', args);
      expect(refused.isError).toBe(true);
      expect(JSON.stringify(refused)).toContain('403');
      expect(JSON.stringify(refused)).not.toContain((first.structuredContent as Json).id);
    } finally {
      await Promise.all([a.close(), b.close(), c.close()]);
    }
  });
});

describe('Idempotency records hold no secret in clear', () => {
  it("a stored answer is sealed: the root password is in no record's result or steps", async () => {
    const reply = await reset(owner.key, 'sealed-check');
    const password = reply.body.rootPassword as string;
    const rows = await app.running.app.prisma.$queryRawUnsafe<{ r: string }[]>(
      `SELECT t::text AS r FROM "IdempotencyRecord" t WHERE "accountId" = $1::uuid`,
      owner.accountId,
    );
    expect(rows.length).toBeGreaterThan(3);
    const text = rows.map((x) => x.r).join('\n');
    expect(text).not.toContain(password);
    expect(text).not.toContain('rootPassword');
    // And the replay still reads it back.
    expect((await reset(owner.key, 'sealed-check')).body.rootPassword).toBe(password);
  });
});
