import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { PrismaClient } from '../../src/generated/prisma/client.ts';

/**
 * OWASP API2 (broken authentication), timing: credentials are found by the SHA-256 of the
 * secret (an index seek — the secret itself never reaches a comparison or the database),
 * and the secrets that must be compared (admin token, passwords, CSRF tokens, push-to-deploy
 * signatures) go through crypto.timingSafeEqual. Guessing is rate limited: dashboard sign-in
 * per e-mail (test/dashboard/security.test.ts) and per client address (here), device user-code
 * entry per account (test/oauth/device-flow.test.ts).
 */
const calls = vi.hoisted(() => ({ timingSafeEqual: 0 }));
vi.mock('node:crypto', async (importOriginal) => {
  const actual = await importOriginal<typeof import('node:crypto')>();
  return {
    ...actual,
    default: actual,
    timingSafeEqual: (a: NodeJS.ArrayBufferView, b: NodeJS.ArrayBufferView) => {
      calls.timingSafeEqual++;
      return actual.timingSafeEqual(a, b);
    },
  };
});

const { authenticate } = await import('../../src/modules/auth/service.ts');
const { tokenMatches } = await import('../../src/http/operator/admin.ts');
const { hashPassword, verifyPassword } = await import('../../src/modules/auth/password.ts');
const { safeEqual, findSession } = await import('../../src/modules/dashboard/sessions.ts');
const { startTestApp } = await import('../helpers/app.ts');

const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

/** A Prisma stand-in that records every call's arguments and finds nothing. */
function recordingPrisma() {
  const seen: unknown[] = [];
  const model = new Proxy(
    {},
    {
      get: (_t, method) => async (args: unknown) => {
        seen.push({ method, args });
        return null;
      },
    },
  );
  return { prisma: new Proxy({}, { get: () => model }) as PrismaClient, seen };
}

describe('lookups by hash', () => {
  it('an API key is looked up by its SHA-256 only; the key itself never reaches the database', async () => {
    const key = `svc_${'Ab1'.repeat(13)}x`;
    const { prisma, seen } = recordingPrisma();
    await expect(authenticate(prisma, `Bearer ${key}`, new Date(), 'http://127.0.0.1/v1')).rejects.toMatchObject({
      status: 401,
    });
    expect(seen).toEqual([{ method: 'findUnique', args: { where: { keyHash: sha256(key) } } }]);
    expect(JSON.stringify(seen)).not.toContain(key);
  });

  it('an OAuth access token too; a malformed credential is refused without any lookup', async () => {
    const token = `svc_at_${'Zz9'.repeat(13)}q`;
    const { prisma, seen } = recordingPrisma();
    await expect(authenticate(prisma, `Bearer ${token}`, new Date(), 'http://127.0.0.1/v1')).rejects.toMatchObject({
      status: 401,
    });
    expect(seen).toMatchObject([{ method: 'findUnique', args: { where: { tokenHash: sha256(token) } } }]);
    expect(JSON.stringify(seen)).not.toContain(token);
    const none = recordingPrisma();
    for (const bad of ['svc_short', `svc_rt_${'a'.repeat(40)}`, 'Basic x', `svc_${'a'.repeat(41)}`]) {
      await expect(
        authenticate(none.prisma, bad.startsWith('Basic') ? bad : `Bearer ${bad}`, new Date(), 'http://127.0.0.1/v1'),
      ).rejects.toMatchObject({ status: 401 });
    }
    expect(none.seen).toEqual([]);
  });

  it('a dashboard session is looked up by the SHA-256 of its cookie', async () => {
    const secret = 'c'.repeat(43);
    const { prisma, seen } = recordingPrisma();
    expect(await findSession(prisma, secret, new Date())).toBeNull();
    expect(seen).toEqual([{ method: 'findUnique', args: { where: { tokenHash: sha256(secret) } } }]);
  });
});

describe('comparisons in constant time', () => {
  it('the admin token: timingSafeEqual over digests, so any length is compared without throwing', () => {
    const expected = 'test-admin-token-0123456789';
    calls.timingSafeEqual = 0;
    expect(tokenMatches(expected, expected)).toBe(true);
    for (const given of ['', 't', expected.slice(0, -1), `${expected}x`, 'x'.repeat(10_000)])
      expect(tokenMatches(given, expected)).toBe(false);
    expect(calls.timingSafeEqual).toBe(6);
  });

  it('passwords (scrypt) and CSRF tokens', async () => {
    const stored = await hashPassword('correct horse battery staple');
    calls.timingSafeEqual = 0;
    expect(await verifyPassword('correct horse battery staple', stored)).toBe(true);
    expect(await verifyPassword('wrong', stored)).toBe(false);
    expect(calls.timingSafeEqual).toBe(2);
    calls.timingSafeEqual = 0;
    expect(safeEqual('abcdef', 'abcdef')).toBe(true);
    expect(safeEqual('abcdef', 'abcdeg')).toBe(false);
    expect(calls.timingSafeEqual).toBe(2);
  });
});

describe('guessing is rate limited', () => {
  let app: Awaited<ReturnType<typeof startTestApp>>;
  beforeAll(async () => {
    // Memory counters even under TEST_REDIS_URL: the per-address bucket (every test is 127.0.0.1)
    // would otherwise stay exhausted for the other files sharing that Redis for 15 minutes.
    app = await startTestApp({ redisUrl: undefined });
  });
  afterAll(() => app?.stop());

  it('dashboard sign-in: 100 attempts per 15 minutes per client address, whatever the e-mail', async () => {
    const pre = await fetch(`${app.url}/dashboard/api/session`);
    const { csrfToken } = (await pre.json()) as { csrfToken: string };
    const cookie = pre.headers.getSetCookie()[0].split(';')[0];
    const statuses: number[] = [];
    for (let i = 0; i < 101; i++) {
      const r = await fetch(`${app.url}/dashboard/api/sign-in`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Origin: app.url, Cookie: cookie, 'X-CSRF-Token': csrfToken },
        body: JSON.stringify({ email: `nobody-${i}@example.com`, password: 'a guess' }),
      });
      statuses.push(r.status);
      if (i === 100) {
        expect(await r.json()).toMatchObject({ statusCode: 429, error: 'Too Many Requests' });
        expect(Number(r.headers.get('retry-after'))).toBeGreaterThan(0);
      }
    }
    expect(statuses.slice(0, 100).every((s) => s === 401)).toBe(true);
    expect(statuses[100]).toBe(429);
    // 101 password checks at bcrypt's cost (an unknown e-mail costs the same as a known one).
  }, 180_000);
});
