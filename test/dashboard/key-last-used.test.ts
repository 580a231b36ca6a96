import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pino from 'pino';
import type { TestApp } from '../helpers/app.ts';
import {
  accountHolder,
  dashboard,
  signIn,
  startOAuthApp,
  type DashboardSession,
  type Holder,
} from '../helpers/oauth.ts';
import { advance } from '../helpers/servers.ts';
import { KeyUseRecorder } from '../../src/modules/auth/key-usage.ts';

let app: TestApp;
let holder: Holder;

beforeAll(async () => {
  app = await startOAuthApp();
  holder = await accountHolder(app);
});
afterAll(() => app?.stop());

/** The key's lastUsedAt in the dashboard's key list, once the (unawaited) write has landed. */
async function lastUsedAt(session: DashboardSession, keyId: string, previous: string | null): Promise<string | null> {
  let value: string | null = previous;
  await expect
    .poll(async () => {
      const list = await dashboard(app, session, 'GET', '/keys');
      expect(list.status).toBe(200);
      value = list.body.data.find((k: { id: string }) => k.id === keyId).lastUsedAt;
      return value;
    })
    .not.toBe(previous);
  return value;
}

describe('API key lastUsedAt', () => {
  it('is recorded from the simulated clock, at most once a minute per key, and shown in the dashboard key list', async () => {
    const minted = await app.admin('POST', `/admin/accounts/${holder.accountId}/api-keys`, {
      scopes: ['account:read'],
    });
    expect(minted.status, minted.text).toBe(201);
    // Far from the wall clock, so a wall-clock write could not pass for the simulated one.
    const simulated = await advance(app, 10 * 86_400);
    const session = await signIn(app, holder);
    const listed = await dashboard(app, session, 'GET', '/keys');
    expect(listed.body.data.find((k: { id: string }) => k.id === minted.body.id).lastUsedAt).toBeNull();
    expect((await app.call('GET', '/v1/account', { key: minted.body.key })).status).toBe(200);
    const first = (await lastUsedAt(session, minted.body.id, null))!;
    expect(Math.abs(new Date(first).getTime() - simulated.getTime())).toBeLessThan(5_000);

    // Within the minute: more requests (REST and GraphQL) leave it as it is.
    await advance(app, 30);
    expect((await app.call('GET', '/v1/account', { key: minted.body.key })).status).toBe(200);
    expect(
      (await app.call('POST', '/graphql', { key: minted.body.key, body: { query: '{ account { id } }' } })).status,
    ).toBe(200);
    // A later read through the same database has seen any write those requests started.
    await app.call('GET', '/v1/account', { key: minted.body.key });
    const unchanged = await dashboard(app, session, 'GET', '/keys');
    expect(unchanged.body.data.find((k: { id: string }) => k.id === minted.body.id).lastUsedAt).toBe(first);

    // A minute later (simulated), the next request moves it.
    const later = await advance(app, 61);
    expect((await app.call('GET', '/v1/account', { key: minted.body.key })).status).toBe(200);
    const second = (await lastUsedAt(session, minted.body.id, first))!;
    expect(new Date(second).getTime()).toBeGreaterThan(new Date(first).getTime() + 60_000);
    expect(Math.abs(new Date(second).getTime() - later.getTime())).toBeLessThan(5_000);
  });
});

describe('KeyUseRecorder', () => {
  const principal = { accountId: 'a', credentialId: 'key_1', kind: 'api_key' as const, scopes: new Set<never>() };

  it('a failed write is logged and never thrown; the next use tries again', async () => {
    const lines: string[] = [];
    const log = pino({ level: 'warn' }, { write: (line: string) => void lines.push(line) });
    let calls = 0;
    const prisma = {
      apiKey: {
        updateMany: async () => {
          calls++;
          throw new Error('database unavailable');
        },
      },
    } as never;
    const recorder = new KeyUseRecorder({ prisma, now: () => new Date('2030-01-01T00:00:00Z'), log });
    expect(() => recorder.record(principal)).not.toThrow();
    await recorder.settled();
    expect(lines.join('')).toMatch(/recording the API key last use failed/);
    recorder.record(principal);
    await recorder.settled();
    expect(calls).toBe(2);
  });

  it('writes once per key per minute of the clock it is given; other credentials are not recorded', async () => {
    const writes: unknown[] = [];
    const prisma = { apiKey: { updateMany: async (args: unknown) => void writes.push(args) } } as never;
    let now = new Date('2030-01-01T00:00:00Z');
    const recorder = new KeyUseRecorder({ prisma, now: () => now, log: pino({ level: 'silent' }) });
    recorder.record(principal);
    recorder.record(principal);
    recorder.record({ ...principal, kind: 'access_token' });
    recorder.record(null);
    now = new Date('2030-01-01T00:00:59.999Z');
    recorder.record(principal);
    await recorder.settled();
    expect(writes).toHaveLength(1);
    // The SQL guard: only a row not written within the minute before `now` is updated.
    expect(writes[0]).toEqual({
      where: { id: 'key_1', OR: [{ lastUsedAt: null }, { lastUsedAt: { lte: new Date('2029-12-31T23:59:00Z') } }] },
      data: { lastUsedAt: new Date('2030-01-01T00:00:00Z') },
    });
    now = new Date('2030-01-01T00:01:00Z');
    recorder.record(principal);
    await recorder.settled();
    expect(writes).toHaveLength(2);
  });
});
