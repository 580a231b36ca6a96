import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type Customer, type TestApp } from '../helpers/app.ts';
import { gql } from '../helpers/graphql.ts';
import { advance, balance, events, expectError } from '../helpers/servers.ts';
import { SSH_KEYS } from '../helpers/ssh-keys.ts';

/** SSH keys on the account (list, add, delete) and chosen at server order and reinstall. */
let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(() => app?.stop());

const ORDER = { productId: 'std-2c-4g-50', label: 'web-7', osTemplate: 'debian-12' };

async function addKey(c: Customer, name: string, line: string) {
  return app.call('POST', '/v1/account/ssh-keys', { key: c.key, body: { name, public_key: line } });
}

async function keyCount(c: Customer) {
  return app.running.app.prisma.sshKey.count({ where: { accountId: c.accountId } });
}

/** What the simulated datacenter was told to put in root's authorized_keys, from its own log. */
async function authorizedKeysLogged(serverId: string) {
  const log = await app.running.app.prisma.providerServerLogEntry.findMany({
    where: { serverId, line: { startsWith: 'authorized_keys:' } },
    orderBy: { id: 'asc' },
  });
  return log.map((l) => l.line);
}

describe('POST /account/ssh-keys', () => {
  it('takes ed25519, nistp256 and RSA keys, with the fingerprint and size ssh-keygen -lf prints', async () => {
    const c = await app.customer({ scopes: ['account:read', 'account:write'] });
    for (const k of [SSH_KEYS.ED25519, SSH_KEYS.ECDSA, SSH_KEYS.RSA_2048]) {
      const res = await addKey(c, `key ${k.bits}`, `  ${k.line}\n`);
      expect(res.status, res.text).toBe(200);
      expect(res.body).toMatchObject({
        id: expect.stringMatching(/^ssh_/),
        name: `key ${k.bits}`,
        type: k.line.split(' ')[0],
        bits: k.bits,
        fingerprint: k.fingerprint,
        public_key: k.line.split(' ').slice(0, 2).join(' '),
        created_at: expect.any(String),
      });
    }
    const list = await app.call('GET', '/v1/account/ssh-keys', { key: c.key });
    expect(list.status).toBe(200);
    expect(list.body.data.map((k: { fingerprint: string }) => k.fingerprint)).toEqual([
      SSH_KEYS.RSA_2048.fingerprint,
      SSH_KEYS.ECDSA.fingerprint,
      SSH_KEYS.ED25519.fingerprint,
    ]);
    expect(list.body).toMatchObject({ hasMore: false, nextCursor: null });
    expect((await events(app, c, 'account.ssh_key.added')).map((e) => e.data.fingerprint)).toHaveLength(3);
  });

  it('refuses what is not a usable key, naming public_key, and stores nothing', async () => {
    const c = await app.customer({ scopes: ['account:read', 'account:write'] });
    const ed = SSH_KEYS.ED25519.line.split(' ');
    const rsa = SSH_KEYS.RSA_2048.line.split(' ');
    const cases: [string, RegExp][] = [
      [SSH_KEYS.RSA_1024.line, /RSA keys must have 2048 to 16384 bits \(this one has 1024\)/],
      ['ssh-dss AAAAB3NzaC1kc3MAAACBAP', /must be of type ssh-ed25519, ecdsa-sha2-nistp256, ssh-rsa/],
      ['not a key at all', /must be of type ssh-ed25519/],
      [`ssh-ed25519 ${rsa[1]}`, /the key data is not a ssh-ed25519 key/],
      [`ssh-ed25519 ${ed[1].slice(0, 40)}`, /one OpenSSH public key line/],
      [`${SSH_KEYS.ED25519.line}\n${SSH_KEYS.ECDSA.line}`, /single key on one line/],
      ['-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjE=', /is a private key/],
    ];
    for (const [line, message] of cases) {
      const res = await addKey(c, 'bad', line);
      expectError(res, 400, message);
      expect(res.body.param).toBe('public_key');
    }
    expectError(await addKey(c, '', SSH_KEYS.ED25519.line), 400, /name/);
    expect(await keyCount(c)).toBe(0);
    expect(await events(app, c)).toEqual([]);
  });

  it('refuses the same key twice (409), whatever its name or comment', async () => {
    const c = await app.customer({ scopes: ['account:read', 'account:write'] });
    expect((await addKey(c, 'laptop', SSH_KEYS.ED25519.line)).status).toBe(200);
    const again = await addKey(c, 'laptop again', `${SSH_KEYS.ED25519.line.split(' ').slice(0, 2).join(' ')} other`);
    expectError(again, 409, /already on the account as "laptop" \(SHA256:O9jW8/);
    expect(await keyCount(c)).toBe(1);
    // Another account may hold the same key.
    const other = await app.customer({ scopes: ['account:read', 'account:write'] });
    expect((await addKey(other, 'shared', SSH_KEYS.ED25519.line)).status).toBe(200);
  });

  it('needs account:write to add and delete, account:read to list', async () => {
    const reader = await app.customer({ scopes: ['account:read'] });
    expectError(await addKey(reader, 'x', SSH_KEYS.ED25519.line), 403, /account:write/);
    expect(await keyCount(reader)).toBe(0);
    const writer = await app.customer({ scopes: ['account:write'] });
    expectError(await app.call('GET', '/v1/account/ssh-keys', { key: writer.key }), 403, /account:read/);
  });
});

describe('DELETE /account/ssh-keys/:id', () => {
  it("deletes the account's key; another account's id is a 404 and stays", async () => {
    const a = await app.customer({ scopes: ['account:read', 'account:write'] });
    const b = await app.customer({ scopes: ['account:read', 'account:write'] });
    const added = await addKey(a, 'laptop', SSH_KEYS.ED25519.line);
    expectError(await app.call('DELETE', `/v1/account/ssh-keys/${added.body.id}`, { key: b.key }), 404);
    expect(await keyCount(a)).toBe(1);
    const gone = await app.call('DELETE', `/v1/account/ssh-keys/${added.body.id}`, { key: a.key });
    expect(gone.status, gone.text).toBe(200);
    expect(gone.body).toEqual({ id: added.body.id, deleted: true });
    expect(await keyCount(a)).toBe(0);
    expectError(await app.call('DELETE', `/v1/account/ssh-keys/${added.body.id}`, { key: a.key }), 404);
    const [deleted] = await events(app, a, 'account.ssh_key.deleted');
    expect(deleted.data).toEqual({
      sshKeyId: added.body.id,
      name: 'laptop',
      fingerprint: SSH_KEYS.ED25519.fingerprint,
    });
  });
});

describe('sshKeyIds at server order and reinstall', () => {
  it('orders a server with keys: the provider gets them, the detail lists them', async () => {
    const c = await app.customer({ walletBalanceUsdCents: 5_000 });
    const one = await addKey(c, 'laptop', SSH_KEYS.ED25519.line);
    const two = await addKey(c, 'ci', SSH_KEYS.ECDSA.line);
    const res = await app.call('POST', '/v1/servers', {
      key: c.key,
      body: { ...ORDER, sshKeyIds: [two.body.id, one.body.id] },
    });
    expect(res.status, res.text).toBe(200);
    const id = res.body.server.id;
    const installed = [
      { id: two.body.id, name: 'ci', fingerprint: SSH_KEYS.ECDSA.fingerprint },
      { id: one.body.id, name: 'laptop', fingerprint: SSH_KEYS.ED25519.fingerprint },
    ];
    expect(res.body.server.sshKeys).toEqual(installed);
    expect(await authorizedKeysLogged(id)).toEqual([
      `authorized_keys: ${SSH_KEYS.ECDSA.fingerprint} ${SSH_KEYS.ED25519.fingerprint}`,
    ]);
    await advance(app, 180);
    // A key deleted later still shows on the server it was built with.
    await app.call('DELETE', `/v1/account/ssh-keys/${one.body.id}`, { key: c.key });
    const detail = await app.call('GET', `/v1/servers/${id}`, { key: c.key });
    expect(detail.body).toMatchObject({ status: 'running', sshKeys: installed });
    const graph = await gql(app, `query($id: ID!) { server(id: $id) { sshKeys { id name fingerprint } } }`, {
      key: c.key,
      variables: { id },
    });
    expect(graph.body.data.server.sshKeys).toEqual(installed);

    // Reinstall: the disk is wiped, so the server has the keys of the new build only.
    const again = await app.call('POST', `/v1/servers/${id}/reinstall`, {
      key: c.key,
      body: { osTemplate: 'ubuntu-24.04', sshKeyIds: [two.body.id] },
    });
    expect(again.status, again.text).toBe(200);
    expect(again.body.sshKeys).toEqual([installed[0]]);
    expect((await authorizedKeysLogged(id)).at(-1)).toBe(`authorized_keys: ${SSH_KEYS.ECDSA.fingerprint}`);
    await advance(app, 120);
    const bare = await app.call('POST', `/v1/servers/${id}/reinstall`, {
      key: c.key,
      body: { osTemplate: 'debian-12' },
    });
    expect(bare.body.sshKeys).toEqual([]);
  });

  it("refuses an unknown or another account's key id (404), and Windows (400): nothing ordered, nothing charged", async () => {
    const a = await app.customer({ walletBalanceUsdCents: 5_000 });
    const b = await app.customer();
    const theirs = await addKey(b, 'theirs', SSH_KEYS.ED25519_OTHER.line);
    const mine = await addKey(a, 'mine', SSH_KEYS.ED25519.line);
    for (const ids of [[theirs.body.id], [mine.body.id, 'ssh_01jq8k2m4p6rab3c5d7e9f1g2h'], ['nonsense']]) {
      const res = await app.call('POST', '/v1/servers', { key: a.key, body: { ...ORDER, sshKeyIds: ids } });
      expectError(res, 404, /SSH key .* not found/);
      expect(res.body.param).toBe('sshKeyIds');
    }
    const windows = await app.call('POST', '/v1/servers', {
      key: a.key,
      body: { ...ORDER, osTemplate: 'windows-2022', sshKeyIds: [mine.body.id] },
    });
    expectError(windows, 400, /Linux systems only/);
    expect(windows.body.param).toBe('sshKeyIds');
    expect((await app.call('GET', '/v1/servers', { key: a.key })).body.data).toEqual([]);
    expect(await balance(app, a)).toBe(5_000);

    const graph = await gql(
      app,
      'mutation($ids: [ID!]) { serverOrder(productId: "std-2c-4g-50", label: "x", osTemplate: "debian-12", sshKeyIds: $ids) { invoiceId } }',
      { key: a.key, variables: { ids: [theirs.body.id] } },
    );
    expect(graph.body.errors[0]).toMatchObject({ extensions: { code: 'NOT_FOUND', field: 'sshKeyIds' } });

    const server = await app.call('POST', '/v1/servers', { key: a.key, body: ORDER });
    await advance(app, 180);
    const reinstall = await app.call('POST', `/v1/servers/${server.body.server.id}/reinstall`, {
      key: a.key,
      body: { osTemplate: 'debian-12', sshKeyIds: [theirs.body.id] },
    });
    expectError(reinstall, 404, /SSH key/);
    const after = await app.call('GET', `/v1/servers/${server.body.server.id}`, { key: a.key });
    expect(after.body).toMatchObject({ status: 'running', sshKeys: [] });
  });
});
