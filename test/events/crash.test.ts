import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/client.ts';
import { freshDatabase } from '../helpers/app.ts';

/**
 * Crash test: the real server (`node bin/svc.js serve`, background work on) is SIGKILLed
 * while events are being produced and delivered, restarted on the same data, and every
 * committed event must reach every matching subscription at least once, with duplicates
 * only as repeats of the same delivery id.
 */
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const ADMIN = 'crash-test-admin-token-0123456789';
const SERVERS = 10;
const KEYS = 5; // 120 requests per minute per key: spread the load
const TARGET_EVENTS = 500;

const procs: ChildProcess[] = [];
const cleanups: (() => Promise<void> | void)[] = [];
afterAll(async () => {
  for (const p of procs) if (p.exitCode === null && p.signalCode === null) p.kill('SIGKILL');
  for (const c of cleanups.reverse()) await c();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function freePort(): Promise<number> {
  const s = net.createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const { port } = s.address() as AddressInfo;
  await new Promise((r) => s.close(r));
  return port;
}

describe('crash safety of the outbox, relay and delivery queue', () => {
  it('SIGKILL mid-stream loses no committed event; duplicates only repeat a delivery id', {
    timeout: 240_000,
  }, async () => {
    const started = Date.now();
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-crash-'));
    const database = await freshDatabase();
    cleanups.push(async () => {
      await database?.drop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    });
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const env = {
      ...process.env,
      DATA_DIR: dataDir,
      PORT: String(port),
      HOST: '127.0.0.1',
      ADMIN_TOKEN: ADMIN,
      WEBHOOK_ALLOW_PRIVATE: '1',
      LOG_LEVEL: 'warn',
      ...(database ? { DATABASE_URL: database.url } : {}),
    };
    let stderr = '';
    const launch = async () => {
      const child = spawn(process.execPath, ['bin/svc.js', 'serve'], {
        cwd: ROOT,
        env,
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      child.stderr!.on('data', (d) => (stderr += d));
      procs.push(child);
      for (let i = 0; i < 300; i++) {
        const ok = await fetch(`${base}/readyz`).then(
          (r) => r.ok,
          () => false,
        );
        if (ok) return child;
        if (child.exitCode !== null) throw new Error(`server exited: ${stderr}`);
        await sleep(100);
      }
      throw new Error(`server did not start: ${stderr}`);
    };

    // The receiver: records every delivery; fails about 1 in 20 first attempts with a 500.
    const receipts: { path: string; eventId: string; deliveryId: string; attempt: string }[] = [];
    const failedOnce = new Set<string>();
    const receiver = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        const deliveryId = String(req.headers['x-service-delivery-id']);
        receipts.push({
          path: req.url!,
          eventId: String(req.headers['x-service-event-id']),
          deliveryId,
          attempt: String(req.headers['x-service-delivery-attempt']),
        });
        const fail = !failedOnce.has(deliveryId) && deliveryId.charCodeAt(deliveryId.length - 1) % 20 === 0;
        if (fail) failedOnce.add(deliveryId);
        res.writeHead(fail ? 500 : 200).end();
      });
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    cleanups.push(
      () =>
        new Promise<void>((r) => {
          receiver.closeAllConnections();
          receiver.close(() => r());
        }),
    );
    const hookBase = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;

    const call = async (method: string, p: string, token: string, body?: unknown) => {
      const res = await fetch(base + p, {
        method,
        headers: { Authorization: `Bearer ${token}`, ...(body ? { 'Content-Type': 'application/json' } : {}) },
        body: body ? JSON.stringify(body) : undefined,
      });
      const text = await res.text();
      return { status: res.status, body: text ? JSON.parse(text) : undefined };
    };

    let server = await launch();
    const account = (
      await call('POST', '/admin/accounts', ADMIN, { email: 'crash@example.com', name: 'Crash', country: 'DE' })
    ).body;
    const bystander = (
      await call('POST', '/admin/accounts', ADMIN, { email: 'other@example.com', name: 'Other', country: 'DE' })
    ).body;
    const keys: string[] = [];
    for (let i = 0; i < KEYS; i++)
      keys.push((await call('POST', `/admin/accounts/${account.id}/api-keys`, ADMIN, {})).body.key);
    const otherKey = (await call('POST', `/admin/accounts/${bystander.id}/api-keys`, ADMIN, {})).body.key;
    const hooks = {
      all: (await call('POST', '/v1/webhooks', keys[0], { url: `${hookBase}/all`, events: ['*'] })).body.id,
      power: (
        await call('POST', '/v1/webhooks', keys[0], { url: `${hookBase}/power`, events: ['server.power.changed'] })
      ).body.id,
      tickets: (await call('POST', '/v1/webhooks', keys[0], { url: `${hookBase}/tickets`, events: ['ticket.created'] }))
        .body.id,
      other: (await call('POST', '/v1/webhooks', otherKey, { url: `${hookBase}/other`, events: ['*'] })).body.id,
    };
    expect(Object.values(hooks).every((id) => /^wh_/.test(id))).toBe(true);
    const serverIds: string[] = [];
    for (let i = 0; i < SERVERS; i++) {
      serverIds.push(
        (
          await call('POST', `/admin/accounts/${account.id}/servers`, ADMIN, {
            productId: 'std-2c-4g-50',
            label: `s${i}`,
            os: 'linux',
            osTemplate: 'ubuntu-24.04',
          })
        ).body.id,
      );
    }
    await call('POST', '/admin/clock/advance', ADMIN, { seconds: 180 });

    // Producers: one per server, toggling stop/start; each 200 is a committed server.power.changed.
    let ok = 0;
    let up = true;
    let killedAt = -1;
    const powerCalls = TARGET_EVENTS - SERVERS;
    const producer = async (i: number) => {
      let action = 'stop';
      while (ok < powerCalls) {
        if (!up) {
          await sleep(50);
          continue;
        }
        try {
          const res = await call('POST', `/v1/servers/${serverIds[i]}/power/${action}`, keys[i % KEYS]);
          if (res.status === 200) {
            ok++;
            action = action === 'stop' ? 'start' : 'stop';
          } else if (res.status !== 429) {
            throw new Error(`power: ${res.status} ${JSON.stringify(res.body)}`);
          } else await sleep(500);
        } catch (err) {
          if ((err as Error).message.startsWith('power:')) throw err;
          await sleep(50); // the server is down: its state decides on restart
          const s = await call('GET', `/v1/servers/${serverIds[i]}`, keys[i % KEYS]).catch(() => undefined);
          if (s?.status === 200) action = s.body.status === 'running' ? 'stop' : 'start';
        }
      }
    };
    const killer = (async () => {
      while (ok < powerCalls / 2) await sleep(5);
      killedAt = receipts.length;
      up = false;
      server.kill('SIGKILL');
      await new Promise((r) => server.once('exit', r));
      server = await launch();
      up = true;
    })();
    await Promise.all([...serverIds.map((_, i) => producer(i)), killer]);
    expect(killedAt).toBeGreaterThan(0);

    // Let the queue drain; move the clock past the backoff and the lease of attempts cut by the kill.
    // Done when the newest deliveries all succeeded and nothing new arrived for a whole round
    // (the log lists the newest 100 only, so quiet receipts are the other half of the test).
    let seen = -1;
    for (let round = 0; round < 120; round++) {
      await sleep(500);
      await call('POST', '/admin/clock/advance', ADMIN, { seconds: 120 });
      const pending = await Promise.all(
        Object.values(hooks).map((id) =>
          call('GET', `/v1/webhooks/${id}/deliveries?limit=100`, id === hooks.other ? otherKey : keys[0]),
        ),
      );
      const settled = pending.every((r) => r.body.data.every((d: { status: string }) => d.status === 'succeeded'));
      if (settled && receipts.length === seen) break;
      seen = receipts.length;
    }
    server.kill('SIGTERM');
    await new Promise((r) => server.once('exit', r));

    // The record: what the database says was committed.
    const db = await openDatabase({ databaseUrl: database?.url, dataDir });
    try {
      const events = await db.prisma.event.findMany({ orderBy: { seq: 'asc' } });
      const deliveries = await db.prisma.webhookDelivery.findMany();
      const mine = events.filter((e) => e.accountId === account.id);
      expect(mine.length).toBeGreaterThanOrEqual(TARGET_EVENTS);
      expect(events.filter((e) => e.accountId === bystander.id)).toEqual([]);
      expect(events.every((e) => e.relaySeq !== null)).toBe(true);

      const got = (p: string) => {
        const m = new Map<string, Set<string>>();
        for (const r of receipts.filter((x) => x.path === p))
          m.set(r.eventId, (m.get(r.eventId) ?? new Set()).add(r.deliveryId));
        return m;
      };
      const all = got('/all');
      const power = got('/power');
      const missingAll = mine.filter((e) => !all.has(e.id));
      const powerEvents = mine.filter((e) => e.type === 'server.power.changed');
      const missingPower = powerEvents.filter((e) => !power.has(e.id));
      expect(missingAll.map((e) => e.id)).toEqual([]);
      expect(missingPower.map((e) => e.id)).toEqual([]);
      expect(got('/tickets').size).toBe(0);
      expect(got('/other').size).toBe(0);
      // Nothing delivered that was not committed; each (subscription, event) under a single delivery id.
      const committed = new Set(mine.map((e) => e.id));
      expect(receipts.filter((r) => !committed.has(r.eventId))).toEqual([]);
      for (const m of [all, power]) for (const [eventId, ids] of m) expect(ids.size, eventId).toBe(1);
      expect(all.size).toBe(mine.length);
      expect(power.size).toBe(powerEvents.length);
      expect(deliveries.length).toBe(mine.length + powerEvents.length);
      expect(deliveries.every((d) => d.status === 'succeeded')).toBe(true);

      const duplicates = receipts.length - all.size - power.size;
      const retriedAfter500 = failedOnce.size;
      console.log(
        `crash test: ${mine.length} events committed, ${deliveries.length} deliveries, ${receipts.length} HTTP receipts ` +
          `(${retriedAfter500} retries after a 500, ${duplicates - retriedAfter500} repeats of attempts cut by the kill), ` +
          `killed after ${killedAt} receipts, ${Math.round((Date.now() - started) / 1000)} s`,
      );
    } finally {
      await db.close();
    }
  });
});
