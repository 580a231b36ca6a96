import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type Customer, type TestApp } from '../helpers/app.ts';
import { gql } from '../helpers/graphql.ts';
import { balance, events, expectError } from '../helpers/servers.ts';

/** The customer's payments (API 1.16): an open invoice paid, the wallet topped up. */
let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(() => app?.stop());

const PAYER = ['billing:read', 'billing:write'];

/** An open invoice of `totalUsdCents`, issued to the account by the operator. */
async function openInvoice(c: Customer, totalUsdCents: number) {
  const res = await app.admin('POST', `/admin/accounts/${c.accountId}/invoices`, {
    items: [{ description: 'Consulting', amountUsdCents: totalUsdCents }],
  });
  expect(res.status, res.text).toBe(201);
  return res.body as { id: string; number: string };
}

describe('POST /billing/invoices/:id/pay', () => {
  it('pays an open invoice from the wallet: paid, debited once, invoice.paid; a second payment is a 409', async () => {
    const c = await app.customer({ scopes: PAYER, walletBalanceUsdCents: 10_000 });
    const inv = await openInvoice(c, 2_500);
    const paid = await app.call('POST', `/v1/billing/invoices/${inv.id}/pay`, {
      key: c.key,
      body: { gateway: 'wallet' },
    });
    expect(paid.status, paid.text).toBe(200);
    expect(paid.body).toMatchObject({ id: inv.id, status: 'paid', paidWith: 'wallet', totalUsdCents: 2_500 });
    expect(await balance(app, c)).toBe(7_500);
    expect((await events(app, c, 'invoice.paid')).map((e) => e.data.invoiceId)).toEqual([inv.id]);
    expectError(
      await app.call('POST', `/v1/billing/invoices/${inv.id}/pay`, { key: c.key, body: { gateway: 'card' } }),
      409,
      /only an open invoice can be paid/,
    );
    expect(await balance(app, c)).toBe(7_500);
  });

  it('through a gateway the wallet is untouched; a short wallet is a 400 that takes nothing', async () => {
    const c = await app.customer({ scopes: PAYER, walletBalanceUsdCents: 1_000 });
    const inv = await openInvoice(c, 2_500);
    const short = await app.call('POST', `/v1/billing/invoices/${inv.id}/pay`, {
      key: c.key,
      body: { gateway: 'wallet' },
    });
    expectError(short, 400, /Insufficient wallet balance.*nothing was charged/);
    expect(await balance(app, c)).toBe(1_000);
    expect((await app.call('GET', `/v1/billing/invoices/${inv.id}`, { key: c.key })).body.status).toBe('open');
    const card = await app.call('POST', `/v1/billing/invoices/${inv.id}/pay`, {
      key: c.key,
      body: { gateway: 'card' },
    });
    expect(card.body).toMatchObject({ status: 'paid', paidWith: 'card' });
    expect(await balance(app, c)).toBe(1_000);
  });

  it("needs billing:write; another account's invoice is a 404; an unknown gateway a 400", async () => {
    const reader = await app.customer({ scopes: ['billing:read'] });
    const inv = await openInvoice(reader, 100);
    expectError(
      await app.call('POST', `/v1/billing/invoices/${inv.id}/pay`, { key: reader.key, body: { gateway: 'card' } }),
      403,
      /billing:write/,
    );
    const stranger = await app.customer({ scopes: PAYER, walletBalanceUsdCents: 10_000 });
    expectError(
      await app.call('POST', `/v1/billing/invoices/${inv.id}/pay`, { key: stranger.key, body: { gateway: 'wallet' } }),
      404,
    );
    expect(await balance(app, stranger)).toBe(10_000);
    const bad = await app.call('POST', `/v1/billing/invoices/${inv.id}/pay`, {
      key: stranger.key,
      body: { gateway: 'cheque' },
    });
    expect(bad.body).toMatchObject({ statusCode: 400, param: 'gateway' });
  });
});

describe('POST /billing/wallet/deposits', () => {
  it('credits the wallet through a gateway: the ledger row, the balance, wallet.deposit.received', async () => {
    const c = await app.customer({ scopes: PAYER, walletBalanceUsdCents: 1_000 });
    const res = await app.call('POST', '/v1/billing/wallet/deposits', {
      key: c.key,
      body: { amount_usd_cents: 2_500, gateway: 'crypto' },
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({
      id: expect.stringMatching(/^txn_/),
      amount_usd_cents: 2_500,
      balance_after_usd_cents: 3_500,
      kind: 'deposit',
      gateway: 'crypto',
      reference: expect.stringMatching(/^0x[0-9a-f]{64}$/),
    });
    expect(await balance(app, c)).toBe(3_500);
    expect((await events(app, c, 'wallet.deposit.received')).map((e) => e.data)).toEqual([
      { amountUsdCents: 2_500, gateway: 'crypto', transactionId: res.body.id },
    ]);
    const listed = await app.call('GET', '/v1/billing/wallet/transactions?limit=1', { key: c.key });
    expect(listed.body.data[0]).toEqual(res.body);
  });

  it('refuses amounts out of bounds and the wallet as a gateway, changing nothing; GraphQL names its own', async () => {
    const c = await app.customer({ scopes: PAYER, walletBalanceUsdCents: 1_000 });
    const deposit = (body: object) => app.call('POST', '/v1/billing/wallet/deposits', { key: c.key, body });
    for (const amount of [499, 1_000_001, 10.5])
      expect((await deposit({ amount_usd_cents: amount, gateway: 'card' })).body).toMatchObject({
        statusCode: 400,
        param: 'amount_usd_cents',
      });
    expect((await deposit({ amount_usd_cents: 1_000, gateway: 'wallet' })).body).toMatchObject({
      statusCode: 400,
      param: 'gateway',
    });
    const graph = await gql(app, 'mutation { walletDeposit(amountUsdCents: 100, gateway: "card") { id } }', {
      key: c.key,
    });
    expect(graph.body.errors[0]).toMatchObject({
      message: 'amountUsdCents must be an integer number of cents from 500 to 1000000.',
      extensions: { field: 'amountUsdCents' },
    });
    expect(await balance(app, c)).toBe(1_000);
    expect(await events(app, c, 'wallet.deposit.received')).toEqual([]);
  });
});
