import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { createClient } from 'graphql-ws';
import WebSocket from 'ws';
import { recordEvent } from '../src/events/outbox.ts';
import { benchCustomer, percentile, sleep, startBenchApp } from './lib.ts';
import type { Figure, Sizes } from './scenarios.ts';

// Scenarios 4 and 5: events delivered to webhook subscriptions and to graphql-ws subscribers.

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** A webhook receiver in its own process (bench/receiver.ts). */
async function startReceiverProcess() {
  const child = spawn(process.execPath, ['--import', 'tsx', 'bench/receiver.ts'], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const port = await new Promise<number>((resolve, reject) => {
    child.stdout!.once('data', (d) => resolve(Number(String(d).trim())));
    child.once('exit', (code) => reject(new Error(`receiver exited ${code}`)));
  });
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    stats: async (): Promise<{ received: number; latencies: number[] }> =>
      (await fetch(`${url}/stats`)).json() as Promise<{ received: number; latencies: number[] }>,
    reset: async () => void (await fetch(`${url}/reset`, { method: 'POST' })),
    close: () => child.kill(),
  };
}

/** Scenario 4: events fanned out to webhook subscriptions on a local receiver (another process). */
export async function webhookPipeline(sizes: Sizes): Promise<Figure[]> {
  const app = await startBenchApp();
  const receiver = await startReceiverProcess();
  try {
    const prisma = app.running.app.prisma;
    const c = await benchCustomer(app);
    for (let i = 0; i < sizes.webhookSubscriptions; i++) {
      const res = await fetch(`${app.url}/v1/webhooks`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${c.key}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ url: `${receiver.url}/h${i}`, events: ['*'] }),
      });
      if (res.status !== 200) throw new Error(`webhook create: ${res.status} ${await res.text()}`);
    }
    const emit = (n: number) =>
      prisma.$transaction(async (tx) => {
        for (let i = 0; i < n; i++)
          await recordEvent(
            tx,
            c.accountId,
            'server.power.changed',
            { serverId: `srv_bench${i}`, action: 'reboot' },
            app.running.app.clock.now(),
          );
      });
    const waitFor = async (n: number) => {
      const started = performance.now();
      for (;;) {
        const { received } = await receiver.stats();
        if (received >= n) return;
        if (performance.now() - started > 300_000) throw new Error(`only ${received} of ${n} deliveries`);
        await sleep(25);
      }
    };
    const expected = sizes.webhookEvents * sizes.webhookSubscriptions;

    // Throughput: commit all events, then time until every delivery arrived.
    const started = performance.now();
    for (let i = 0; i < sizes.webhookEvents; i += 100) await emit(Math.min(100, sizes.webhookEvents - i));
    await waitFor(expected);
    const seconds = (performance.now() - started) / 1000;
    const figures: Figure[] = [
      {
        scenario: '4 webhooks',
        metric: `${sizes.webhookEvents} events × ${sizes.webhookSubscriptions} subscriptions`,
        value: expected,
        unit: 'deliveries',
      },
      {
        scenario: '4 webhooks',
        metric: 'delivery throughput',
        value: expected / seconds,
        unit: 'deliveries/s',
        budget: '≥ 1,000',
        pass: expected / seconds >= 1000,
      },
    ];

    // Latency at a steady rate: commit time (the event's `created`) to receipt.
    await receiver.reset();
    const total = sizes.latencyRate * sizes.latencySeconds;
    const t0 = performance.now();
    for (let i = 0; i < total; i++) {
      const wait = t0 + (i * 1000) / sizes.latencyRate - performance.now();
      if (wait > 0) await sleep(wait);
      await emit(1);
    }
    await waitFor(total * sizes.webhookSubscriptions);
    const { latencies } = await receiver.stats();
    figures.push({
      scenario: '4 webhooks',
      metric: `commit→receipt p50 at ${sizes.latencyRate} events/s`,
      value: percentile(latencies, 50),
      unit: 'ms',
    });
    figures.push({
      scenario: '4 webhooks',
      metric: `commit→receipt p99 at ${sizes.latencyRate} events/s`,
      value: percentile(latencies, 99),
      unit: 'ms',
      budget: '≤ 250',
      pass: percentile(latencies, 99) <= 250,
    });
    return figures;
  } finally {
    receiver.close();
    await app.stop();
  }
}

/** Scenario 5: graphql-ws subscribers; commit to receipt. */
export async function subscribers(sizes: Sizes): Promise<Figure[]> {
  const app = await startBenchApp();
  const clients: ReturnType<typeof createClient>[] = [];
  try {
    const prisma = app.running.app.prisma;
    const c = await benchCustomer(app);
    const latencies: number[] = [];
    let ready = 0;
    for (let i = 0; i < sizes.subscribers; i++) {
      const client = createClient({
        url: `${app.url.replace('http', 'ws')}/graphql`,
        webSocketImpl: WebSocket,
        connectionParams: { authorization: `Bearer ${c.key}` },
        retryAttempts: 0,
      });
      clients.push(client);
      client.subscribe<{ events: { created: string } }>(
        { query: 'subscription { events { id created } }' },
        {
          next: (msg) => latencies.push(Date.now() - Date.parse(msg.data!.events.created)),
          error: () => undefined,
          complete: () => undefined,
        },
      );
      client.on('connected', () => void ready++);
    }
    while (ready < sizes.subscribers) await sleep(20);
    await sleep(500);
    for (let i = 0; i < sizes.subscriberEvents; i++) {
      await prisma.$transaction((tx) =>
        recordEvent(
          tx,
          c.accountId,
          'server.power.changed',
          { serverId: `srv_sub${i}`, action: 'stop' },
          app.running.app.clock.now(),
        ),
      );
      await sleep(100);
    }
    const expected = sizes.subscribers * sizes.subscriberEvents;
    const until = Date.now() + 90_000;
    while (latencies.length < expected && Date.now() < until) await sleep(20);
    return [
      {
        scenario: '5 subscriptions',
        metric: `${sizes.subscribers} subscribers × ${sizes.subscriberEvents} events received`,
        value: latencies.length,
        unit: 'messages',
      },
      { scenario: '5 subscriptions', metric: 'commit→receipt p50', value: percentile(latencies, 50), unit: 'ms' },
      {
        scenario: '5 subscriptions',
        metric: 'commit→receipt p99',
        value: percentile(latencies, 99),
        unit: 'ms',
        budget: '≤ 200',
        pass: latencies.length === expected && percentile(latencies, 99) <= 200,
      },
    ];
  } finally {
    await Promise.all(clients.map((c) => c.dispose()));
    await app.stop();
  }
}
