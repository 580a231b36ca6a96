import { isDeepStrictEqual } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getSchema } from '../../src/schema/index.ts';
import { listOperations } from '../../src/schema/operation.ts';
import { restView } from '../../src/schema/rest-view.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { startReceiver, type Receiver } from '../helpers/webhooks.ts';
import { buildEstate, type Estate } from '../security/estate.ts';
import { argsFor, restRequest } from '../security/requests.ts';

/**
 * Stripe's rule, generated from the metadata: every POST mutation honours Idempotency-Key. For
 * each one, the same request twice with one key answers the first status and body again, marked
 * `Idempotent-Replayed: true` (test/spine/idempotency.test.ts has the rest of the rule). A new POST operation is
 * covered the moment it is declared.
 */
const operations = listOperations(restView(getSchema()));
// A password-session operation answers every key 403 before it runs: nothing to replay.
const posts = operations.filter((op) => op.kind === 'mutation' && op.method === 'POST' && !op.meta.caller);

let app: TestApp;
let receiver: Receiver;
let estate: Estate;

beforeAll(async () => {
  app = await startTestApp({ requestsPerMinute: 1e9, webhookAllowPrivate: true });
  receiver = await startReceiver();
  estate = await buildEstate(app, await app.customer({ walletBalanceUsdCents: 1_000_000 }), receiver);
}, 180_000);

afterAll(async () => {
  await receiver?.close();
  await app?.stop();
});

async function send(req: { method: string; url: string; body?: unknown }, key: string) {
  const res = await fetch(app.url + req.url, {
    method: req.method,
    headers: {
      Authorization: `Bearer ${estate.customer.key}`,
      'Idempotency-Key': key,
      ...(req.body !== undefined ? { 'Content-Type': 'application/json' } : {}),
    },
    body: req.body !== undefined ? JSON.stringify(req.body) : undefined,
  });
  return { status: res.status, replayed: res.headers.get('idempotent-replayed'), text: await res.text() };
}

describe('Idempotency-Key on every POST', () => {
  it('is derived from the method: every POST mutation and nothing else', () => {
    for (const op of operations)
      expect(op.idempotencyKey, op.meta.rest).toBe(op.kind === 'mutation' && op.method === 'POST');
    expect(posts.length).toBeGreaterThan(30);
  });

  it('a repeat with the same key replays the first answer without running again', async () => {
    const failures: string[] = [];
    for (const op of posts) {
      const req = restRequest(op, argsFor(op, estate));
      const key = `every-post-${op.name}`;
      const first = await send(req, key);
      const again = await send(req, key);
      if (first.status >= 500)
        failures.push(`${op.meta.rest}: first answer ${first.status} ${first.text.slice(0, 200)}`);
      if (
        again.replayed !== 'true' ||
        again.status !== first.status ||
        !isDeepStrictEqual(JSON.parse(again.text), JSON.parse(first.text))
      ) {
        failures.push(
          `${op.meta.rest}: not replayed (${first.status} then ${again.status}, replayed=${again.replayed}) ${again.text.slice(0, 200)}`,
        );
      }
    }
    expect(failures).toEqual([]);
  }, 120_000);
});
