import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type Customer, type TestApp } from '../helpers/app.ts';
import { gql } from '../helpers/graphql.ts';
import { activeHosting, MANAGE, siteDir } from '../helpers/hosting.ts';
import { expectError } from '../helpers/servers.ts';

// A hosting database's MySQL user gets its password from POST /hosting/:id/databases/:name/password:
// a new random one each time, shown once; the app keeps only when it was set, the simulated MySQL
// only a bcrypt hash; the account's shell signs in with it (`mysql -u … -p…`).

let app: TestApp;
let c: Customer;
let id: string;
let database: string;

beforeAll(async () => {
  app = await startTestApp();
  c = await app.customer({ scopes: MANAGE });
  id = await activeHosting(app, c);
  const made = await app.call('POST', `/v1/hosting/${id}/databases`, { key: c.key, body: { suffix: 'shop' } });
  expect(made.status, made.text).toBe(200);
  database = made.body.name;
  expect((await app.call('POST', `/v1/hosting/${id}/ssh-terminal/access`, { key: c.key })).status).toBe(200);
});
afterAll(() => app?.stop());

/** Runs one line in a fresh browser-SSH session of the account. */
async function shell(text: string): Promise<string> {
  const s = (await app.call('POST', `/v1/hosting/${id}/ssh-terminal/launch`, { key: c.key })).body;
  const res = await fetch(`${app.url}/ssh-terminal/${s.sessionId}/line`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'X-Terminal-Token': s.token },
    body: JSON.stringify({ line: text, cwd: '/' }),
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { output: string }).output;
}

const reset = (headers: Record<string, string> = {}, key = c.key, hostingId = id, name = database) =>
  app.call('POST', `/v1/hosting/${hostingId}/databases/${name}/password`, { key, headers });

describe("a hosting database's password", () => {
  it('a new database has none: listed with password_set_at null, and its user cannot sign in', async () => {
    const list = await app.call('GET', `/v1/hosting/${id}/databases`, { key: c.key });
    expect(list.body.data).toEqual([expect.objectContaining({ name: database, user: database, passwordSetAt: null })]);
    expect(await shell(`mysql -u ${database} -panything ${database}`)).toBe(
      `ERROR 1045 (28000): Access denied for user '${database}'@'localhost' (using password: YES)`,
    );
  });

  it('is set once, shown once, signs the user in; a second reset replaces it', async () => {
    const first = await reset();
    expect(first.status, first.text).toBe(200);
    expect(first.body).toEqual({
      name: database,
      user: database,
      host: 'localhost',
      password: expect.stringMatching(/^[A-Za-z2-9]{24}$/),
      passwordSetAt: expect.any(String),
    });
    expect(await shell(`mysql -u ${database} -p${first.body.password} ${database}`)).toMatch(
      new RegExp(`^Welcome to the MySQL monitor .*\\nSigned in as ${database}@localhost to ${database}\\.`),
    );
    // The list says when, never what.
    const list = await app.call('GET', `/v1/hosting/${id}/databases`, { key: c.key });
    expect(list.body.data[0].passwordSetAt).toBe(first.body.passwordSetAt);
    expect(list.text).not.toContain(first.body.password);

    const second = await reset();
    expect(second.status).toBe(200);
    expect(second.body.password).not.toBe(first.body.password);
    expect(await shell(`mysql --user=${database} --password=${first.body.password}`)).toMatch(/^ERROR 1045/);
    expect(await shell(`mysql --user=${database} --password=${second.body.password}`)).toMatch(/^Welcome/);
    // Only its own database: another name is refused after the sign-in.
    expect(await shell(`mysql -u ${database} -p${second.body.password} mysql`)).toMatch(/^ERROR 1044/);

    // The simulated MySQL keeps a bcrypt hash, outside the databases' dumps (so never in a backup).
    const stored = fs.readFileSync(path.join(siteDir(app, id, 'private'), 'mysql-users', database), 'utf8');
    expect(stored).toMatch(new RegExp(`^${database}:\\$2[aby]\\$10\\$`));
    expect(stored).not.toContain(second.body.password);
    for (const f of fs.readdirSync(siteDir(app, id, 'mysql')))
      expect(fs.readFileSync(path.join(siteDir(app, id, 'mysql'), f), 'utf8')).not.toContain('$2');
  });

  it('an Idempotency-Key replays the same answer; the event names the part, never the password', async () => {
    const headers = { 'Idempotency-Key': 'db-password-1' };
    const once = await reset(headers);
    const again = await reset(headers);
    expect(again.status).toBe(200);
    expect(again.body).toEqual(once.body);
    const reader = await app.admin('POST', `/admin/accounts/${c.accountId}/api-keys`, {
      scopes: ['account:read', 'hosting:read'],
    });
    const events = await app.call('GET', '/v1/events?type=hosting.panel.changed', { key: reader.body.key });
    expect(events.status, events.text).toBe(200);
    const latest = events.body.data.find((e: { data: { action: string } }) => e.data.action === 'password_reset');
    expect(latest.data).toEqual({ hostingId: id, part: 'databases', action: 'password_reset' });
    expect(events.text).not.toContain(once.body.password);
  });

  it('over GraphQL too, with passwordSetAt on the list', async () => {
    const r = await gql(
      app,
      'mutation($id: ID!, $name: String!) { hostingDatabasePasswordReset(id: $id, name: $name) { name password passwordSetAt } }',
      { key: c.key, variables: { id, name: database } },
    );
    expect(r.body.errors).toBeUndefined();
    expect(r.body.data.hostingDatabasePasswordReset.password).toMatch(/^[A-Za-z2-9]{24}$/);
    const list = await gql(app, 'query($id: ID!) { hostingDatabases(id: $id) { nodes { name passwordSetAt } } }', {
      key: c.key,
      variables: { id },
    });
    expect(list.body.data.hostingDatabases.nodes[0].passwordSetAt).toBe(
      r.body.data.hostingDatabasePasswordReset.passwordSetAt,
    );
  });

  it("refuses an unknown database, another account's hosting and a key without hosting:manage; changes nothing", async () => {
    const before = fs.readFileSync(path.join(siteDir(app, id, 'private'), 'mysql-users', database), 'utf8');
    expectError(await reset({}, c.key, id, `${database}_nope`), 404);
    const stranger = await app.customer({ scopes: MANAGE });
    expectError(await reset({}, stranger.key), 404);
    const reader = await app.customer({ scopes: ['hosting:read'] });
    expectError(await reset({}, reader.key), 403);
    expect(fs.readFileSync(path.join(siteDir(app, id, 'private'), 'mysql-users', database), 'utf8')).toBe(before);
  });

  it('is no MCP tool (it hands out a credential)', async () => {
    const listed = await app.call('POST', '/mcp', {
      key: c.key,
      body: { jsonrpc: '2.0', id: 1, method: 'tools/list' },
      headers: { Accept: 'application/json, text/event-stream' },
    });
    expect(listed.status).toBe(200);
    expect(listed.text).toContain('hosting_database_create');
    expect(listed.text).not.toContain('hosting_database_password_reset');
  });

  it('goes with its database: a dropped and re-created database starts without a password', async () => {
    expect((await app.call('DELETE', `/v1/hosting/${id}/databases/${database}`, { key: c.key })).status).toBe(200);
    expect(fs.existsSync(path.join(siteDir(app, id, 'private'), 'mysql-users', database))).toBe(false);
    const again = await app.call('POST', `/v1/hosting/${id}/databases`, { key: c.key, body: { suffix: 'shop' } });
    expect(again.body.passwordSetAt).toBeNull();
  });
});
