import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { advance, balance, events } from '../helpers/servers.ts';
import { advanceTo, DAY, HOUR, nextFirstOfMonth } from '../helpers/billing.ts';
import { runRenewals } from '../../src/modules/billing/renewals.ts';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(() => app?.stop());

/**
 * Three months of a server (std-2c-4g-50, $12.00) with an add-on (4 extra IPv4, $10.00) and a
 * capacity pool (2 vCPU + 1×2 GB + 1×100 GB = $16.00), from a wallet of $70.00 with
 * auto-recharge of $10.00 below $30.00. Hand-computed, in cents:
 *
 * | # | when                         | ledger row          | amount | balance | note                                     |
 * |---|------------------------------|---------------------|--------|---------|------------------------------------------|
 * | 1 | t0                           | opening_balance     | +7000  | 7000    |                                          |
 * | 2 | t0 pool bought               | pool_purchase       | -1600  | 5400    | pool renews at P1 = t0 + 1 month         |
 * | 3 | t0+3 min add-on attached     | addon_purchase      | -1000  | 4400    | full month: the cycle just started       |
 * |   | month 1 (P1, then S1)        |                     |        |         |                                          |
 * | 4 | pool invoice #1 1600 paid    | invoice_payment     | -1600  | 2800    | crossed 3000 ↓                           |
 * | 5 |                              | auto_recharge (card)| +1000  | 3800    | back above: re-armed                     |
 * | 6 | server invoice #2 2200 paid  | invoice_payment     | -2200  | 1600    | crossed 3000 ↓                           |
 * | 7 |                              | auto_recharge (card)| +1000  | 2600    | still below: no further recharge         |
 * |   | month 2 (P2, then S2)        |                     |        |         |                                          |
 * | 8 | pool invoice #3 1600 paid    | invoice_payment     | -1600  | 1000    | already below 3000: no recharge          |
 * |   | server invoice #4 2200       | —                   |        | 1000    | open: the wallet does not cover it       |
 * |   | S2 + 3 days                  | —                   |        |         | grace over: server suspended (#4 unpaid) |
 * | 9 | operator deposit (crypto)    | deposit             | +3000  | 4000    |                                          |
 * |10 | next run: invoice #4 paid    | invoice_payment     | -2200  | 1800    | crossed 3000 ↓; server back (stopped)    |
 * |11 |                              | auto_recharge (card)| +1000  | 2800    |                                          |
 * |   | month 3 (P3, then S3)        |                     |        |         |                                          |
 * |12 | pool invoice #5 1600 paid    | invoice_payment     | -1600  | 1200    | already below 3000: no recharge          |
 * |   | server invoice #6 2200       | —                   |        | 1200    | open                                     |
 */
const LEDGER = [
  ['opening_balance', 7000, 7000],
  ['pool_purchase', -1600, 5400],
  ['addon_purchase', -1000, 4400],
  ['invoice_payment', -1600, 2800],
  ['auto_recharge', 1000, 3800],
  ['invoice_payment', -2200, 1600],
  ['auto_recharge', 1000, 2600],
  ['invoice_payment', -1600, 1000],
  ['deposit', 3000, 4000],
  ['invoice_payment', -2200, 1800],
  ['auto_recharge', 1000, 2800],
  ['invoice_payment', -1600, 1200],
] as const;

const SERVER_ITEMS = [
  { description: 'Server "web-1" (std-2c-4g-50)', amountUsdCents: 1200 },
  { description: '4 extra IPv4 addresses on "web-1"', amountUsdCents: 1000 },
];
// Invoices in issue order: [reference kind, total, final status, paid with].
const INVOICES = [
  ['pool', 1600, 'paid', 'wallet'],
  ['server', 2200, 'paid', 'wallet'],
  ['pool', 1600, 'paid', 'wallet'],
  ['server', 2200, 'paid', 'wallet'],
  ['pool', 1600, 'paid', 'wallet'],
  ['server', 2200, 'open', null],
] as const;

describe('renewals over three months', () => {
  it('invoices, wallet transactions, auto-recharges and a suspension match the hand-computed table', {
    timeout: 60_000,
  }, async () => {
    await advanceTo(app, nextFirstOfMonth(app.running.app.clock.now()));
    const c = await app.customer({ walletBalanceUsdCents: 7000 });
    const call = (method: string, path: string, body?: unknown) => app.call(method, `/v1${path}`, { key: c.key, body });

    const pool = await call('POST', '/pools', {
      productId: 'pool-fra1',
      label: 'batch',
      vcpu: 2,
      ram2gb: 1,
      disk100: 1,
      ip16: 0,
    });
    expect(pool.status, pool.text).toBe(200);
    expect(pool.body.monthlyUsdCents).toBe(1600);
    const order = await app.admin('POST', `/admin/accounts/${c.accountId}/servers`, {
      productId: 'std-2c-4g-50',
      label: 'web-1',
      os: 'linux',
      osTemplate: 'ubuntu-24.04',
    });
    expect(order.status, order.text).toBe(201);
    expect(order.body.invoiceId).toBeNull(); // an operator order is not charged without "charge": true
    const serverId = order.body.id;
    await advance(app, 180);
    const attach = await call('POST', `/servers/${serverId}/addons`, { addonId: 'addon-ipv4-4' });
    expect(attach.status, attach.text).toBe(200);
    expect(attach.body.chargedUsdCents).toBe(1000);
    const ar = await call('PATCH', '/billing/wallet/auto-recharge', {
      enabled: true,
      threshold_usd_cents: 3000,
      amount_usd_cents: 1000,
    });
    expect(ar.status, ar.text).toBe(200);
    expect(ar.body).toMatchObject({
      balance_usd_cents: 4400,
      auto_recharge: { enabled: true, threshold_usd_cents: 3000, amount_usd_cents: 1000 },
    });

    const serverRenews = async () => new Date((await call('GET', `/servers/${serverId}`)).body.renewsAt);
    const poolRenews = async () => new Date((await call('GET', `/pools/${pool.body.id}`)).body.renewsAt);
    const s1 = await serverRenews();
    const p1 = await poolRenews();
    expect(p1.getTime()).toBeLessThan(s1.getTime());

    // Month 1: both renew from the wallet, each crossing the threshold once.
    await advanceTo(app, new Date(s1.getTime() + HOUR * 1000));
    expect(await balance(app, c)).toBe(2600);
    const s2 = await serverRenews();
    expect(s2.getUTCMonth()).toBe((s1.getUTCMonth() + 1) % 12);

    // Month 2: the pool is paid, the server's invoice stays open; nothing suspended before the grace period ends.
    await advanceTo(app, new Date(s2.getTime() + HOUR * 1000));
    expect(await balance(app, c)).toBe(1000);
    expect((await call('GET', `/servers/${serverId}`)).body.status).toBe('running');
    await advanceTo(app, new Date(s2.getTime() + 3 * DAY * 1000 - HOUR * 1000));
    expect((await call('GET', `/servers/${serverId}`)).body.status).toBe('running');
    await advanceTo(app, new Date(s2.getTime() + 3 * DAY * 1000 + HOUR * 1000));
    const suspended = (await call('GET', `/servers/${serverId}`)).body;
    expect(suspended).toMatchObject({
      status: 'suspended',
      suspendReason: expect.stringMatching(
        /^non-payment: renewal invoice INV-\d{4}-\d{6} \(\$22\.00\) unpaid 3 days after its due date$/,
      ),
    });
    expect(await serverRenews()).toEqual(s2);

    // A deposit lets the next run settle the overdue invoice from the wallet: the suspension is lifted.
    const dep = await app.admin('POST', `/admin/accounts/${c.accountId}/wallet/deposits`, {
      amountUsdCents: 3000,
      gateway: 'crypto',
    });
    expect(dep.status, dep.text).toBe(201);
    await advance(app, 60);
    expect((await call('GET', `/servers/${serverId}`)).body).toMatchObject({ status: 'stopped', suspendReason: null });
    const s3 = await serverRenews();
    expect(s3.getTime()).toBeGreaterThan(s2.getTime());

    // Month 3.
    await advanceTo(app, new Date(s3.getTime() + HOUR * 1000));
    expect(await balance(app, c)).toBe(1200);

    // The ledger, row by row.
    const txns = (await call('GET', '/billing/wallet/transactions?limit=100')).body.data.reverse();
    expect(
      txns.map((t: { kind: string; amount_usd_cents: number; balance_after_usd_cents: number }) => [
        t.kind,
        t.amount_usd_cents,
        t.balance_after_usd_cents,
      ]),
    ).toEqual(LEDGER.map((r) => [...r]));
    expect(
      txns
        .filter((t: { kind: string }) => t.kind === 'auto_recharge')
        .every((t: { gateway: string | null }) => t.gateway === 'card'),
    ).toBe(true);
    expect(txns.find((t: { kind: string }) => t.kind === 'deposit').gateway).toBe('crypto');

    // The invoices, in issue order.
    const list = await call('GET', '/billing/invoices?limit=100');
    expect(list.status).toBe(200);
    const invoices = list.body.data.reverse();
    expect(
      invoices.map(
        (i: { reference: string | null; totalUsdCents: number; status: string; paidWith: string | null }) => [
          i.reference === serverId ? 'server' : i.reference === pool.body.id ? 'pool' : i.reference,
          i.totalUsdCents,
          i.status,
          i.paidWith,
        ],
      ),
    ).toEqual(INVOICES.map((r) => [...r]));
    for (const inv of invoices) {
      expect(inv).toMatchObject({
        source: 'renewal',
        currency: 'USD',
        number: expect.stringMatching(/^INV-\d{4}-\d{6}$/),
      });
      if (inv.reference === serverId)
        expect(
          inv.items.map((i: { description: string; amountUsdCents: number }) => ({
            description: i.description,
            amountUsdCents: i.amountUsdCents,
          })),
        ).toEqual(SERVER_ITEMS);
      else
        expect(inv.items).toMatchObject([
          { amountUsdCents: 1600, description: expect.stringContaining('Capacity pool "batch"') },
        ]);
      expect(new Date(inv.items[0].periodEnd).getUTCMonth()).toBe(
        (new Date(inv.items[0].periodStart).getUTCMonth() + 1) % 12,
      );
    }
    expect(new Set(invoices.map((i: { number: string }) => i.number)).size).toBe(6);
    // Invoice #4 (server, month 2) is the one the suspension named; it was paid after the deposit.
    expect(suspended.suspendReason).toContain(invoices[3].number);

    // Events: 6 invoices created, 5 paid, 3 auto-recharges and 1 deposit received, 1 suspension.
    const evs = await events(app, c);
    const count = (type: string) => evs.filter((e) => e.type === type).length;
    expect([
      count('invoice.created'),
      count('invoice.paid'),
      count('wallet.deposit.received'),
      count('server.suspended'),
    ]).toEqual([6, 5, 4, 1]);
    expect(evs.find((e) => e.type === 'server.suspended')!.data).toEqual({ serverId, reason: suspended.suspendReason });
    expect(
      evs.filter((e) => e.type === 'wallet.deposit.received').map((e) => [e.data.amountUsdCents, e.data.gateway]),
    ).toEqual([
      [1000, 'card'],
      [1000, 'card'],
      [3000, 'crypto'],
      [1000, 'card'],
    ]);
    const created = evs.find((e) => e.type === 'invoice.created')!.data;
    expect(created).toEqual({
      invoiceId: invoices[0].id,
      invoiceNumber: invoices[0].number,
      status: 'open',
      totalUsdCents: 1600,
      currency: 'USD',
    });

    // The job is idempotent per period: running it again, twice at once, issues nothing new.
    const now = app.running.app.clock.now();
    await Promise.all([
      runRenewals(app.running.app.prisma, app.running.app.provider, now),
      runRenewals(app.running.app.prisma, app.running.app.provider, now),
    ]);
    expect(await app.running.app.prisma.invoice.count({ where: { accountId: c.accountId } })).toBe(6);
    expect(await balance(app, c)).toBe(1200);

    // The balance is the sum of the ledger.
    const sum = await app.running.app.prisma.walletTransaction.aggregate({
      where: { accountId: c.accountId },
      _sum: { amountUsdCents: true },
    });
    expect(sum._sum.amountUsdCents).toBe(1200);
  });
});
