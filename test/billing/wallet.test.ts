import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { balance, events, expectError } from '../helpers/servers.ts';
import { tryDebit } from '../../src/modules/billing/wallet.ts';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(() => app?.stop());

describe('wallet ledger under concurrency', () => {
  it('50 concurrent debits against a wallet that covers 10: exactly 10 succeed, the balance never goes negative', async () => {
    const c = await app.customer({ walletBalanceUsdCents: 1000 });
    const prisma = app.running.app.prisma;
    const now = app.running.app.clock.now();
    const results = await Promise.allSettled(
      Array.from({ length: 50 }, (_, i) =>
        prisma.$transaction((tx) =>
          tryDebit(tx, {
            accountId: c.accountId,
            amountUsdCents: 100,
            kind: 'test_debit',
            description: `debit ${i}`,
            now,
          }),
        ),
      ),
    );
    expect(results.every((r) => r.status === 'fulfilled')).toBe(true);
    const succeeded = results.filter((r) => r.status === 'fulfilled' && r.value !== null);
    expect(succeeded).toHaveLength(10);
    expect(await balance(app, c)).toBe(0);
    const rows = await prisma.walletTransaction.findMany({ where: { accountId: c.accountId }, orderBy: { id: 'asc' } });
    expect(rows).toHaveLength(11);
    expect(rows.every((r) => r.balanceAfterUsdCents >= 0)).toBe(true);
    expect(rows.map((r) => r.balanceAfterUsdCents)).toEqual([1000, 900, 800, 700, 600, 500, 400, 300, 200, 100, 0]);
  });
});

describe('wallet and transactions over HTTP', () => {
  it('GET /billing/wallet shows the balance and auto-recharge; transactions are newest first with limit and cursor', async () => {
    const c = await app.customer({ walletBalanceUsdCents: 5000 });
    const w = await app.call('GET', '/v1/billing/wallet', { key: c.key });
    expect(w.status).toBe(200);
    expect(w.body).toEqual({
      balance_usd_cents: 5000,
      currency: 'USD',
      state: 'active',
      auto_recharge: { enabled: false, threshold_usd_cents: null, amount_usd_cents: null, gateway: 'card' },
      updated_at: expect.any(String),
    });
    for (const amount of [100, 200, 300])
      expect(
        (
          await app.admin('POST', `/admin/accounts/${c.accountId}/wallet/deposits`, {
            amountUsdCents: amount,
            gateway: 'online',
          })
        ).status,
      ).toBe(201);
    const page1 = await app.call('GET', '/v1/billing/wallet/transactions?limit=2', { key: c.key });
    expect(page1.status).toBe(200);
    expect(page1.body.data.map((t: { amount_usd_cents: number }) => t.amount_usd_cents)).toEqual([300, 200]);
    expect(page1.body.data[0]).toMatchObject({
      kind: 'deposit',
      gateway: 'online',
      balance_after_usd_cents: 5600,
      id: expect.stringMatching(/^txn_/),
    });
    expect(page1.body.hasMore).toBe(true);
    const page2 = await app.call('GET', `/v1/billing/wallet/transactions?limit=2&cursor=${page1.body.nextCursor}`, {
      key: c.key,
    });
    expect(page2.body.data.map((t: { amount_usd_cents: number }) => t.amount_usd_cents)).toEqual([100, 5000]);
    expect(page2.body.hasMore).toBe(false);
    expectError(await app.call('GET', '/v1/billing/wallet/transactions?limit=1001', { key: c.key }), 400, /limit/);
    const deposits = (await events(app, c, 'wallet.deposit.received')).map((e) => e.data);
    expect(deposits[0]).toEqual({
      amountUsdCents: 100,
      gateway: 'online',
      transactionId: expect.stringMatching(/^txn_/),
    });
  });

  it('auto-recharge needs billing:write and validates its amounts', async () => {
    const reader = await app.customer({ scopes: ['billing:read'] });
    expectError(
      await app.call('PATCH', '/v1/billing/wallet/auto-recharge', {
        key: reader.key,
        body: { enabled: true, threshold_usd_cents: 1000, amount_usd_cents: 1000 },
      }),
      403,
      /billing:write/,
    );
    const c = await app.customer({ scopes: ['billing:read', 'billing:write'] });
    const patch = (body: unknown) => app.call('PATCH', '/v1/billing/wallet/auto-recharge', { key: c.key, body });
    expectError(await patch({ enabled: true }), 400, /threshold_usd_cents is required/);
    expectError(
      await patch({ enabled: true, threshold_usd_cents: 0, amount_usd_cents: 1000 }),
      400,
      /threshold_usd_cents/,
    );
    expectError(
      await patch({ enabled: true, threshold_usd_cents: -5, amount_usd_cents: 1000 }),
      400,
      /threshold_usd_cents/,
    );
    expectError(
      await patch({ enabled: true, threshold_usd_cents: 1000, amount_usd_cents: 10_000_000 }),
      400,
      /amount_usd_cents/,
    );
    expectError(
      await patch({ enabled: true, threshold_usd_cents: 1000, amount_usd_cents: 100 }),
      400,
      /amount_usd_cents/,
    );
    expectError(await patch({ enabled: true, threshold_usd_cents: 10.5, amount_usd_cents: 1000 }), 400);
    expectError(await patch({ enabled: 'yes' }), 400);
    expectError(await patch({}), 400, /at least one/);
    const ok = await patch({ enabled: true, threshold_usd_cents: 2000, amount_usd_cents: 1500 });
    expect(ok.status, ok.text).toBe(200);
    expect(ok.body.auto_recharge).toEqual({
      enabled: true,
      threshold_usd_cents: 2000,
      amount_usd_cents: 1500,
      gateway: 'card',
    });
    const off = await patch({ enabled: false });
    expect(off.body.auto_recharge).toEqual({
      enabled: false,
      threshold_usd_cents: 2000,
      amount_usd_cents: 1500,
      gateway: 'card',
    });
  });

  it('a debit that crosses the threshold tops up once through the card gateway; the top-up triggers nothing more', async () => {
    const c = await app.customer({ walletBalanceUsdCents: 3000 });
    await app.call('PATCH', '/v1/billing/wallet/auto-recharge', {
      key: c.key,
      body: { enabled: true, threshold_usd_cents: 2500, amount_usd_cents: 500 },
    });
    const prisma = app.running.app.prisma;
    const debitOf = (amount: number) =>
      prisma.$transaction((tx) =>
        tryDebit(tx, {
          accountId: c.accountId,
          amountUsdCents: amount,
          kind: 'test_debit',
          description: 'test',
          now: app.running.app.clock.now(),
        }),
      );
    await debitOf(1000); // 3000 → 2000 (crossed) → +500 → 2500 (back at the threshold: re-armed)
    expect(await balance(app, c)).toBe(2500);
    await debitOf(100); // 2500 → 2400 (crossed again) → +500 → 2900
    expect(await balance(app, c)).toBe(2900);
    await debitOf(2000); // 2900 → 900 (crossed) → +500 → 1400, still below: no loop
    await debitOf(100); // 1400 → 1300: already below, no recharge
    expect(await balance(app, c)).toBe(1300);
    const recharges = await prisma.walletTransaction.findMany({
      where: { accountId: c.accountId, kind: 'auto_recharge' },
    });
    expect(recharges).toHaveLength(3);
    expect(
      recharges.every((r) => r.gateway === 'card' && r.amountUsdCents === 500 && r.reference?.startsWith('ch_sim_')),
    ).toBe(true);
    expect((await events(app, c, 'wallet.deposit.received')).map((e) => e.data.gateway)).toEqual([
      'card',
      'card',
      'card',
    ]);
    expect((await app.call('GET', '/v1/billing/wallet', { key: c.key })).body.state).toBe('low');
  });
});

describe('invoices', () => {
  it('operator invoices: numbered, with line items, paginated with page and limit, paid by gateway or wallet', async () => {
    const c = await app.customer({ walletBalanceUsdCents: 2000 });
    const other = await app.customer();
    const ids: string[] = [];
    for (let i = 1; i <= 3; i++) {
      const res = await app.admin('POST', `/admin/accounts/${c.accountId}/invoices`, {
        items: [
          { description: `Consulting hour ${i}`, amountUsdCents: 1000 },
          { description: 'Setup fee', amountUsdCents: 250 },
        ],
      });
      expect(res.status, res.text).toBe(201);
      expect(res.body).toMatchObject({
        status: 'open',
        source: 'operator',
        currency: 'USD',
        totalUsdCents: 1250,
        number: expect.stringMatching(/^INV-\d{4}-\d{6}$/),
        paidAt: null,
        paidWith: null,
      });
      expect(res.body.items).toEqual([
        { description: `Consulting hour ${i}`, amountUsdCents: 1000, periodStart: null, periodEnd: null },
        { description: 'Setup fee', amountUsdCents: 250, periodStart: null, periodEnd: null },
      ]);
      ids.push(res.body.id);
    }
    const created = (await events(app, c, 'invoice.created')).map((e) => e.data);
    expect(created).toHaveLength(3);
    expect(created[0]).toEqual({
      invoiceId: ids[0],
      invoiceNumber: expect.stringMatching(/^INV-/),
      status: 'open',
      totalUsdCents: 1250,
      currency: 'USD',
    });
    const seqs = created.map((e) => Number(String(e.invoiceNumber).slice(-6)));
    expect(seqs[1]).toBe(seqs[0] + 1);

    const p1 = await app.call('GET', '/v1/billing/invoices?page=1&limit=2', { key: c.key });
    expect(p1.status).toBe(200);
    expect(p1.body).toMatchObject({ page: 1, limit: 2, total: 3, hasMore: true });
    expect(p1.body.data.map((i: { id: string }) => i.id)).toEqual([ids[2], ids[1]]);
    const p2 = await app.call('GET', '/v1/billing/invoices?page=2&limit=2', { key: c.key });
    expect(p2.body).toMatchObject({ page: 2, limit: 2, total: 3, hasMore: false });
    expect(p2.body.data.map((i: { id: string }) => i.id)).toEqual([ids[0]]);
    expect((await app.call('GET', '/v1/billing/invoices', { key: c.key })).body.limit).toBe(20);
    expectError(await app.call('GET', '/v1/billing/invoices?limit=0', { key: c.key }), 400, /limit/);
    expectError(await app.call('GET', '/v1/billing/invoices?limit=101', { key: c.key }), 400, /limit/);
    expectError(await app.call('GET', '/v1/billing/invoices?page=0', { key: c.key }), 400, /page/);

    const one = await app.call('GET', `/v1/billing/invoices/${ids[0]}`, { key: c.key });
    expect(one.status).toBe(200);
    expect(one.body.items).toHaveLength(2);
    expectError(await app.call('GET', `/v1/billing/invoices/${ids[0]}`, { key: other.key }), 404);
    expectError(await app.call('GET', '/v1/billing/invoices/inv_nope', { key: c.key }), 404);

    // Card, online payment, cryptocurrency, wallet.
    const card = await app.admin('POST', `/admin/invoices/${ids[0]}/pay`, { gateway: 'card' });
    expect(card.status, card.text).toBe(200);
    expect(card.body).toMatchObject({ status: 'paid', paidWith: 'card', paidAt: expect.any(String) });
    expectError(await app.admin('POST', `/admin/invoices/${ids[0]}/pay`, { gateway: 'crypto' }), 409, /paid/);
    expect((await app.admin('POST', `/admin/invoices/${ids[1]}/pay`, { gateway: 'crypto' })).body.paidWith).toBe(
      'crypto',
    );
    expectError(await app.admin('POST', `/admin/invoices/${ids[2]}/pay`, { gateway: 'bank' }), 400, /gateway/);
    const wallet = await app.admin('POST', `/admin/invoices/${ids[2]}/pay`, { gateway: 'wallet' });
    expect(wallet.body).toMatchObject({ status: 'paid', paidWith: 'wallet' });
    expect(await balance(app, c)).toBe(750);
    const paid = (await events(app, c, 'invoice.paid')).map((e) => e.data);
    expect(paid).toHaveLength(3);
    expect(paid[0]).toEqual({
      invoiceId: ids[0],
      invoiceNumber: created[0].invoiceNumber,
      totalUsdCents: 1250,
      currency: 'USD',
    });

    // The wallet refuses what it does not cover; nothing is taken.
    const big = await app.admin('POST', `/admin/accounts/${c.accountId}/invoices`, {
      items: [{ description: 'Big', amountUsdCents: 5000 }],
    });
    expectError(
      await app.admin('POST', `/admin/invoices/${big.body.id}/pay`, { gateway: 'wallet' }),
      400,
      /Insufficient/,
    );
    expect(await balance(app, c)).toBe(750);
    expect((await app.admin('POST', `/admin/invoices/${big.body.id}/pay`, { gateway: 'online' })).body.status).toBe(
      'paid',
    );
  });

  it('operator validation: items, amounts, deposits and gateways', async () => {
    const c = await app.customer();
    const inv = (body: unknown) => app.admin('POST', `/admin/accounts/${c.accountId}/invoices`, body);
    expectError(await inv({ items: [] }), 400, /items/);
    expectError(await inv({ items: [{ description: 'x', amountUsdCents: 0 }] }), 400, /amountUsdCents/);
    expectError(await inv({ items: [{ description: 'x', amountUsdCents: 1.5 }] }), 400, /amountUsdCents/);
    expectError(await inv({ items: [{ description: '', amountUsdCents: 100 }] }), 400, /description/);
    const dep = (body: unknown) => app.admin('POST', `/admin/accounts/${c.accountId}/wallet/deposits`, body);
    expectError(await dep({ amountUsdCents: -1, gateway: 'card' }), 400, /amountUsdCents/);
    expectError(await dep({ amountUsdCents: 100, gateway: 'wallet' }), 400, /gateway/);
    expectError(
      await app.admin('POST', '/admin/accounts/00000000-0000-0000-0000-000000000000/wallet/deposits', {
        amountUsdCents: 100,
        gateway: 'card',
      }),
      404,
    );
    expectError(
      await app.admin('POST', '/admin/invoices/inv_00000000000000000000000000/pay', { gateway: 'card' }),
      404,
    );
  });

  it('an operator server order with "charge": true is invoiced and paid from the wallet; short balance → 400, nothing ordered', async () => {
    const c = await app.customer({ walletBalanceUsdCents: 1500 });
    const order = (label: string) =>
      app.admin('POST', `/admin/accounts/${c.accountId}/servers`, {
        productId: 'std-2c-4g-50',
        label,
        os: 'linux',
        osTemplate: 'ubuntu-24.04',
        charge: true,
      });
    const ok = await order('paid-1');
    expect(ok.status, ok.text).toBe(201);
    const invoice = (await app.call('GET', `/v1/billing/invoices/${ok.body.invoiceId}`, { key: c.key })).body;
    expect(invoice).toMatchObject({
      source: 'order',
      status: 'paid',
      paidWith: 'wallet',
      totalUsdCents: 1200,
      reference: ok.body.id,
    });
    expect(await balance(app, c)).toBe(300);
    expectError(await order('paid-2'), 400, /Insufficient/);
    expect(await app.running.app.prisma.server.count({ where: { accountId: c.accountId } })).toBe(1);
    expect(await balance(app, c)).toBe(300);
  });
});
