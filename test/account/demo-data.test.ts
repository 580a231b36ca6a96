import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { spawnServer, waitReady, type ServerProcess } from '../helpers/process.ts';

// A whole process starts here (tsx compiles, PGlite initialises): allow for a loaded machine.
vi.setConfig({ testTimeout: 180_000 });

let server: ServerProcess | undefined;
afterAll(async () => {
  if (server && server.child.exitCode === null) {
    server.child.kill('SIGTERM');
    await server.exited;
  }
  if (server) fs.rmSync(server.dataDir, { recursive: true, force: true });
});

describe('npm start on a fresh data directory: the demo account holds something to look at', () => {
  it('every list the dashboard and GraphiQL show has items, the servers run, and nothing is dated after now', async () => {
    server = await spawnServer();
    await waitReady(server);
    const creds = JSON.parse(fs.readFileSync(path.join(server.dataDir, 'demo-credentials.json'), 'utf8'));
    const get = async (p: string) => {
      const res = await fetch(`${server!.url}/v1${p}`, { headers: { Authorization: `Bearer ${creds.apiKey}` } });
      expect(res.status, `GET ${p}`).toBe(200);
      return res.json();
    };
    const wallNow = Date.now();

    const servers = (await get('/servers')).data;
    expect(servers.length).toBeGreaterThanOrEqual(3);
    for (const s of servers) expect(s.status, s.label).toBe('running');
    const inPool = servers.filter((s: { poolId: string | null }) => s.poolId);
    expect(inPool).toHaveLength(1);

    const pools = (await get('/pools')).data;
    expect(pools.map((p: { id: string }) => p.id)).toContain(inPool[0].poolId);

    const standalone = servers.filter((s: { poolId: string | null }) => !s.poolId);
    let snapshots = 0;
    let addons = 0;
    for (const s of standalone) {
      snapshots += (await get(`/servers/${s.id}/snapshots`)).data.length;
      addons += (await get(`/servers/${s.id}/addons`)).data.filter((a: { active: boolean }) => a.active).length;
    }
    expect(snapshots).toBeGreaterThanOrEqual(1);
    expect(addons).toBeGreaterThanOrEqual(1);

    const hosting = (await get('/hosting')).data;
    expect(hosting.length).toBeGreaterThanOrEqual(1);
    expect(hosting[0].status).toBe('active');
    const index = await get(
      `/hosting/${hosting[0].id}/files/read?path=${encodeURIComponent('/public_html/index.html')}`,
    );
    expect(index.content).toContain('ACME Demo Shop');

    const domains = (await get('/domains')).data;
    expect(domains.map((d: { status: string }) => d.status)).toContain('active');
    const mailDomains = (await get('/mail/domains')).data;
    expect(mailDomains.length).toBeGreaterThanOrEqual(1);
    expect((await get('/mail/mailboxes')).data.length).toBeGreaterThanOrEqual(1);

    const invoices = (await get('/billing/invoices')).data;
    const states = invoices.map((i: { status: string }) => i.status);
    expect(states).toContain('paid');
    expect(states).toContain('open');
    const transactions = (await get('/billing/wallet/transactions')).data;
    const kinds = transactions.map((t: { kind: string }) => t.kind);
    expect(kinds).toEqual(expect.arrayContaining(['deposit', 'invoice_payment', 'pool_purchase', 'addon_purchase']));
    // The balance is what the history says: each transaction's balance follows from the one before.
    const oldestFirst = [...transactions].reverse();
    for (let i = 1; i < oldestFirst.length; i++) {
      expect(oldestFirst[i].balance_after_usd_cents).toBe(
        oldestFirst[i - 1].balance_after_usd_cents + oldestFirst[i].amount_usd_cents,
      );
    }
    expect((await get('/billing/wallet')).balance_usd_cents).toBe(transactions[0].balance_after_usd_cents);

    const tickets = (await get('/tickets')).data;
    expect(tickets.length).toBeGreaterThanOrEqual(1);
    const ticket = await get(`/tickets/${tickets[0].id}`);
    expect(ticket.messages.map((m: { author: string }) => m.author)).toEqual(['customer', 'staff']);
    expect(ticket.status).toBe('answered');

    // The demo's history happened in the past: the live clock was not moved forward for it.
    const stamps = [...servers, ...pools, ...invoices, ...tickets].map((r: { createdAt: string }) =>
      Date.parse(r.createdAt),
    );
    stamps.push(
      ...servers.map((s: { provisionedAt: string }) => Date.parse(s.provisionedAt)),
      ...tickets.map((t: { lastReplyAt: string }) => Date.parse(t.lastReplyAt)),
    );
    stamps.push(...transactions.map((t: { created_at: string }) => Date.parse(t.created_at)));
    for (const t of stamps) expect(t).toBeLessThan(wallNow);
    expect(Math.min(...stamps)).toBeGreaterThan(wallNow - 4 * 86_400_000);
  });
});
