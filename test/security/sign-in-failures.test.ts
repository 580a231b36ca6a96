import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../helpers/app.ts';
import { accountHolder, dashboard, postSignIn, signIn, startOAuthApp } from '../helpers/oauth.ts';

/**
 * The sign-in limit (docs/REFERENCE.md: Dashboard sign-in) counts failures only: ten wrong
 * passwords for one e-mail from one address lock it for 15 minutes, and a right password clears
 * that (address, e-mail)'s failures. Sudo (the password typed again) shares the count.
 */
let app: TestApp;

beforeAll(async () => {
  app = await startOAuthApp();
});
afterAll(async () => {
  await app?.stop();
});

/** One JSON sign-in attempt as the dashboard makes it. */
async function attempt(email: string, password: string) {
  const res = await postSignIn(app.url, { email, password });
  const body = await res.json();
  return {
    status: res.status,
    message: body.message as string | undefined,
    retryAfter: res.headers.get('retry-after'),
    session: res.headers.getSetCookie().some((c) => c.startsWith('svc_session=')),
  };
}

async function statuses(email: string, passwords: string[]): Promise<number[]> {
  const out: number[] = [];
  for (const p of passwords) out.push((await attempt(email, p)).status);
  return out;
}

const wrong = (n: number) => Array.from({ length: n }, (_, i) => `wrong-guess-${i}`);

describe('sign-in limits count failures only', () => {
  it('2 wrong and then 9 right passwords from one address: every right one signs in', async () => {
    const h = await accountHolder(app);
    expect(await statuses(h.email, wrong(2))).toEqual([401, 401]);
    expect(await statuses(h.email, Array(9).fill(h.password))).toEqual(Array(9).fill(200));
  });

  it('10 wrong passwords lock the e-mail from that address: 429 with Retry-After, even for the right one, no session', async () => {
    const h = await accountHolder(app);
    expect(await statuses(h.email, wrong(10))).toEqual(Array(10).fill(401));
    const locked = await attempt(h.email, h.password);
    expect(locked.status).toBe(429);
    expect(locked.message).toMatch(/Too many attempts/);
    expect(Number(locked.retryAfter)).toBeGreaterThan(0);
    expect(locked.session).toBe(false);
  });

  it('a success after a few failures starts the count again', async () => {
    const h = await accountHolder(app);
    expect(await statuses(h.email, wrong(5))).toEqual(Array(5).fill(401));
    expect((await attempt(h.email, h.password)).status).toBe(200);
    // Ten more failures are allowed before the lock (15 in all), then the eleventh is refused.
    expect(await statuses(h.email, wrong(10))).toEqual(Array(10).fill(401));
    expect((await attempt(h.email, h.password)).status).toBe(429);
  });

  it('the password confirmed for sudo shares the count: a right one clears it too', async () => {
    const h = await accountHolder(app);
    const s = await signIn(app, h);
    expect(await statuses(h.email, wrong(9))).toEqual(Array(9).fill(401));
    const sudo = await dashboard(app, s, 'POST', '/sudo', { password: h.password });
    expect(sudo.status).toBe(200);
    expect(await statuses(h.email, wrong(9))).toEqual(Array(9).fill(401));
    const wrongSudo = await dashboard(app, s, 'POST', '/sudo', { password: 'still wrong' });
    expect(wrongSudo.status).toBe(401);
    expect((await attempt(h.email, h.password)).status).toBe(429);
  });
});
