import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type Customer, type TestApp } from '../helpers/app.ts';
import { gql } from '../helpers/graphql.ts';

let app: TestApp;
let c: Customer;
let serverId: string;

beforeAll(async () => {
  app = await startTestApp();
  c = await app.customer();
  const order = await app.admin('POST', `/admin/accounts/${c.accountId}/servers`, {
    productId: 'std-1c-2g-50',
    label: 'idem',
    os: 'linux',
    osTemplate: 'debian-12',
  });
  serverId = order.body.id;
  await app.admin('POST', '/admin/clock/advance', { seconds: 300 });
});
afterAll(() => app?.stop());

const snapshotCount = () => app.running.app.prisma.snapshot.count({ where: { serverId } });
const create = (key: string | undefined, body: object, apiKey = c.key) =>
  app.call('POST', `/v1/servers/${serverId}/snapshots`, {
    key: apiKey,
    body,
    headers: key ? { 'Idempotency-Key': key } : {},
  });

describe('Idempotency-Key', () => {
  it('a repeat returns the first status and body without running again', async () => {
    const first = await create('k-1', { name: 'before upgrade' });
    expect(first.status).toBe(200);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const again = await create('k-1', { name: 'before upgrade' });
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await snapshotCount()).toBe(1);
  });

  it('without a key every request runs', async () => {
    const before = await snapshotCount();
    await create(undefined, { name: 'a' });
    await create(undefined, { name: 'a' });
    expect(await snapshotCount()).toBe(before + 2);
  });

  it('the same key with a different body → 422, nothing runs', async () => {
    const before = await snapshotCount();
    await create('k-2', { name: 'one' });
    const other = await create('k-2', { name: 'two' });
    expect(other.status).toBe(422);
    expect(other.body).toEqual({
      statusCode: 422,
      message: expect.stringMatching(/different request parameters/),
      error: 'Unprocessable Entity',
      code: 'UNPROCESSABLE_ENTITY',
    });
    expect(await snapshotCount()).toBe(before + 1);
  });

  it('the same key while the first is still running → 409', async () => {
    const prisma = app.running.app.prisma;
    // The record a first request holds while it runs is `in_progress` with its fingerprint.
    // Put a finished record back into that state (same fingerprint) and repeat the request.
    await create('k-3', { name: 'slow' });
    await prisma.idempotencyRecord.update({
      where: { accountId_credentialId_key: { accountId: c.accountId, credentialId: c.keyId, key: 'k-3' } },
      data: { state: 'in_progress', result: undefined },
    });
    const before = await snapshotCount();
    const second = await create('k-3', { name: 'slow' });
    expect(second.status).toBe(409);
    expect(second.body).toEqual({
      statusCode: 409,
      message: expect.stringMatching(/still being processed/),
      error: 'Conflict',
      code: 'CONFLICT',
    });
    expect(await snapshotCount()).toBe(before);
  });

  it.runIf(process.env.TEST_DATABASE_URL)(
    '409 for a truly concurrent repeat (PostgreSQL: the first request held on a row lock)',
    async () => {
      const prisma = app.running.app.prisma;
      let release!: () => void;
      const held = new Promise<void>((r) => (release = r));
      let locked!: () => void;
      const isLocked = new Promise<void>((r) => (locked = r));
      const locking = prisma.$transaction(
        async (tx) => {
          await tx.$queryRawUnsafe('SELECT 1 FROM "Server" WHERE id = $1 FOR UPDATE', serverId);
          locked();
          await held;
        },
        { timeout: 20_000 },
      );
      await isLocked;
      const firstRun = create('k-4', { name: 'slow' });
      // Wait until the first request has claimed its key and is blocked inside its work.
      for (let i = 0; i < 100 && !(await prisma.idempotencyRecord.findFirst({ where: { key: 'k-4' } })); i++)
        await new Promise((r) => setTimeout(r, 20));
      const second = await create('k-4', { name: 'slow' });
      expect(second.status).toBe(409);
      release();
      await locking;
      expect((await firstRun).status).toBe(200);
      expect((await create('k-4', { name: 'slow' })).headers.get('idempotent-replayed')).toBe('true');
    },
  );

  it('keys are per account: another account may use the same key', async () => {
    const d = await app.customer();
    const order = await app.admin('POST', `/admin/accounts/${d.accountId}/servers`, {
      productId: 'std-1c-2g-50',
      label: 'd',
      os: 'linux',
      osTemplate: 'debian-12',
    });
    await app.admin('POST', '/admin/clock/advance', { seconds: 300 });
    const res = await app.call('POST', `/v1/servers/${order.body.id}/snapshots`, {
      key: d.key,
      body: { name: 'before upgrade' },
      headers: { 'Idempotency-Key': 'k-1' },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('idempotent-replayed')).toBeNull();
  });

  it('a stored refusal replays too (4xx results of a run are kept), and a key expires after 24 h', async () => {
    const onMissing = () =>
      app.call('POST', '/v1/servers/srv_00000000000000000000000000/snapshots', {
        key: c.key,
        body: { name: 'x' },
        headers: { 'Idempotency-Key': 'k-5' },
      });
    const refused = await onMissing();
    expect(refused.status).toBe(404);
    const replay = await onMissing();
    expect(replay.status).toBe(404);
    expect(replay.body).toEqual(refused.body);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');

    // Stripe's rule: values refused before the operation runs (input rules) keep no result, so the
    // corrected retry with the same key runs.
    const invalid = await create('k-7', { name: 'x'.repeat(80) });
    expect(invalid.status).toBe(400);
    expect(invalid.headers.get('idempotent-replayed')).toBeNull();
    const corrected = await create('k-7', { name: 'x'.repeat(60) });
    expect(corrected.status).toBe(200);

    const before = await snapshotCount();
    await create('k-6', { name: 'daily' });
    await app.admin('POST', '/admin/clock/advance', { seconds: 24 * 3600 + 1 });
    const later = await create('k-6', { name: 'daily' });
    expect(later.status).toBe(200);
    expect(later.headers.get('idempotent-replayed')).toBeNull();
    expect(await snapshotCount()).toBe(before + 2);
  });

  it('applies on GraphQL with the same header and store', async () => {
    const mutation = 'mutation($id: ID!) { serverSnapshotCreate(id: $id, name: "gql") { id name } }';
    const first = await gql(app, mutation, {
      key: c.key,
      variables: { id: serverId },
      headers: { 'Idempotency-Key': 'g-1' },
    });
    const again = await gql(app, mutation, {
      key: c.key,
      variables: { id: serverId },
      headers: { 'Idempotency-Key': 'g-1' },
    });
    expect(first.status).toBe(200);
    expect(again.body).toEqual(first.body);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
  });

  it('an invalid key → 400; every POST honours the header, reads and PUTs ignore it', async () => {
    const bad = await create('k'.repeat(300), { name: 'x' });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toMatch(/Idempotency-Key/);
    const power1 = await app.call('POST', `/v1/servers/${serverId}/power/stop`, {
      key: c.key,
      headers: { 'Idempotency-Key': 'p-1' },
    });
    const power2 = await app.call('POST', `/v1/servers/${serverId}/power/start`, {
      key: c.key,
      headers: { 'Idempotency-Key': 'p-1' },
    });
    expect(power1.body.status).toBe('stopped');
    expect(power2.status).toBe(422);
    const power3 = await app.call('POST', `/v1/servers/${serverId}/power/start`, {
      key: c.key,
      headers: { 'Idempotency-Key': 'p-2' },
    });
    expect(power3.body.status).toBe('running');
    const read = await app.call('GET', `/v1/servers/${serverId}`, {
      key: c.key,
      headers: { 'Idempotency-Key': 'p-2' },
    });
    expect(read.status).toBe(200);
    expect(read.headers.get('idempotent-replayed')).toBeNull();
  });
});
