import { builder } from '../../schema/builder.ts';
import { rules } from '../../schema/input-rules.ts';
import { Node } from '../../schema/graph.ts';
import { operation } from '../../schema/operation.ts';
import { listType, pageArgs, PAGE_DEFAULT, PAGE_MAX } from '../../schema/pagination.ts';
import { getInvoice, INVOICE_PAGE_RULES, INVOICES_PAGE_DEFAULT, INVOICES_PAGE_MAX, listInvoices, type InvoiceView } from './invoices.ts';
import { AUTO_RECHARGE_AMOUNT_MAX, AUTO_RECHARGE_RULES, AUTO_RECHARGE_AMOUNT_MIN, AUTO_RECHARGE_THRESHOLD_MAX, getWallet, listWalletTransactions, setAutoRecharge, type WalletView } from './service.ts';

// Field casing (README: Billing): invoices are camelCase like their events (invoiceNumber,
// totalUsdCents); the wallet is snake_case like its request fields (threshold_usd_cents).

const InvoiceItem = builder.objectRef<InvoiceView['items'][number]>('InvoiceItem').implement({
  description: 'A line of an invoice.',
  fields: (t) => ({
    description: t.exposeString('description'),
    amountUsdCents: t.exposeInt('amountUsdCents'),
    periodStart: t.expose('periodStart', { type: 'DateTime', nullable: true, description: 'Start of the period billed (renewals).' }),
    periodEnd: t.expose('periodEnd', { type: 'DateTime', nullable: true, description: 'End of the period billed (renewals), exclusive.' }),
  }),
});

export const Invoice = builder.objectRef<InvoiceView>('Invoice').implement({
  interfaces: [Node],
  description: 'An invoice with its line items; amounts in integer US cents.',
  fields: (t) => ({
    id: t.exposeID('id'),
    number: t.exposeString('number', { description: 'INV-<year>-<6 digits>, gap-free per year.' }),
    status: t.exposeString('status', { description: 'open, paid or void.' }),
    source: t.exposeString('source', { description: 'order, renewal or operator.' }),
    currency: t.exposeString('currency', { description: 'Always USD.' }),
    totalUsdCents: t.exposeInt('totalUsdCents'),
    reference: t.exposeString('reference', { nullable: true, description: 'The resource it bills (srv_..., pool_..., dom_...).' }),
    items: t.field({ type: [InvoiceItem], resolve: (i) => i.items }),
    dueAt: t.expose('dueAt', { type: 'DateTime' }),
    paidAt: t.expose('paidAt', { type: 'DateTime', nullable: true }),
    paidWith: t.exposeString('paidWith', { nullable: true, description: 'wallet, card, online or crypto.' }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
  }),
});

const InvoicePage = builder.objectRef<Awaited<ReturnType<typeof listInvoices>>>('InvoicePage').implement({
  description: 'One page of invoices, newest first.',
  fields: (t) => ({
    data: t.field({ type: [Invoice], resolve: (p) => p.data }),
    page: t.exposeInt('page'),
    limit: t.exposeInt('limit'),
    total: t.exposeInt('total', { description: 'Invoices in all.' }),
    hasMore: t.exposeBoolean('hasMore'),
  }),
});

builder.queryField('invoices', (t) =>
  t.field({
    ...operation({ summary: 'List invoices', scope: 'billing:read', rest: 'GET /billing/invoices', area: 'billing', tool: 'invoices_list',
      description: 'The invoices of the account, newest first, by page number (page, limit; total counts them all).' }),
    type: InvoicePage,
    args: {
      page: t.arg.int({ required: false, description: 'Page number, from 1 (default 1).', ...rules(INVOICE_PAGE_RULES.page) }),
      limit: t.arg.int({ required: false, description: `Invoices per page, 1 to ${INVOICES_PAGE_MAX} (default ${INVOICES_PAGE_DEFAULT}).`, ...rules(INVOICE_PAGE_RULES.limit) }),
    },
    resolve: (_root, args, ctx) => listInvoices(ctx.db, args),
  }),
);

builder.queryField('invoice', (t) =>
  t.field({
    ...operation({ summary: 'Get an invoice', scope: 'billing:read', rest: 'GET /billing/invoices/:id', area: 'billing', tool: 'invoice_get',
      description: 'One invoice with its line items, total and payment state.' }),
    type: Invoice,
    args: { id: t.arg.id({ required: true, description: 'The invoice id.' }) },
    resolve: (_root, args, ctx) => getInvoice(ctx.db, args.id),
  }),
);

const AutoRecharge = builder.objectRef<WalletView['auto_recharge']>('WalletAutoRecharge').implement({
  description: 'Automatic top-up through the card gateway when a debit takes the balance below the threshold (once per drop).',
  fields: (t) => ({
    enabled: t.exposeBoolean('enabled'),
    threshold_usd_cents: t.exposeInt('threshold_usd_cents', { nullable: true }),
    amount_usd_cents: t.exposeInt('amount_usd_cents', { nullable: true }),
    gateway: t.exposeString('gateway', { description: 'The gateway top-ups go through: card.' }),
  }),
});

export const Wallet = builder.objectRef<WalletView>('Wallet').implement({
  description: 'The prepaid wallet: balance in integer US cents and auto-recharge settings.',
  fields: (t) => ({
    balance_usd_cents: t.exposeInt('balance_usd_cents', { description: 'Never negative.' }),
    currency: t.exposeString('currency'),
    state: t.exposeString('state', { description: 'active, or low when auto-recharge is on and the balance is under its threshold.' }),
    auto_recharge: t.field({ type: AutoRecharge, resolve: (w) => w.auto_recharge }),
    updated_at: t.expose('updated_at', { type: 'DateTime' }),
  }),
});

builder.queryField('wallet', (t) =>
  t.field({
    ...operation({ summary: 'Get the wallet', scope: 'billing:read', rest: 'GET /billing/wallet', area: 'billing', tool: 'wallet_get',
      description: 'The prepaid wallet balance in cents and its auto-recharge settings.' }),
    type: Wallet,
    resolve: (_root, _args, ctx) => getWallet(ctx.db),
  }),
);

type TxnPage = Awaited<ReturnType<typeof listWalletTransactions>>;
export const WalletTransaction = builder.objectRef<TxnPage['data'][number]>('WalletTransaction').implement({
  description: 'One movement of the wallet ledger.',
  fields: (t) => ({
    id: t.exposeID('id'),
    amount_usd_cents: t.exposeInt('amount_usd_cents', { description: 'Signed: credits positive, debits negative.' }),
    balance_after_usd_cents: t.exposeInt('balance_after_usd_cents'),
    kind: t.exposeString('kind', { description: 'opening_balance, deposit, auto_recharge, invoice_payment, addon_purchase, pool_purchase or pool_resize.' }),
    description: t.exposeString('description'),
    gateway: t.exposeString('gateway', { nullable: true, description: 'card, online or crypto for deposits.' }),
    reference: t.exposeString('reference', { nullable: true, description: 'What it was for (inv_..., srv_..., pool_...) or the gateway charge id of a deposit.' }),
    created_at: t.expose('created_at', { type: 'DateTime' }),
  }),
});

const WalletTransactionList = listType('WalletTransactionList', WalletTransaction);

builder.queryField('walletTransactions', (t) =>
  t.field({
    ...operation({ summary: 'List wallet transactions', scope: 'billing:read', rest: 'GET /billing/wallet/transactions', area: 'billing', tool: 'wallet_transactions_list',
      description: 'Credits and debits of the wallet, newest first, each with the balance after it. A page of the list envelope; follow nextCursor while hasMore.' }),
    type: WalletTransactionList,
    args: pageArgs(t),
    resolve: (_root, args, ctx) => listWalletTransactions(ctx.db, args),
  }),
);

builder.mutationField('walletAutoRechargeSet', (t) =>
  t.field({
    ...operation({ summary: 'Set auto-recharge', scope: 'billing:write', rest: 'PATCH /billing/wallet/auto-recharge', area: 'billing', tool: 'wallet_auto_recharge_set',
      description: 'Turn wallet auto-recharge on or off and set its threshold and top-up amount: when a debit takes the balance below the threshold, the card on file is charged the amount and the wallet credited. Answers the wallet.' }),
    type: Wallet,
    args: {
      enabled: t.arg.boolean({ required: false, description: 'Auto-recharge on or off.' }),
      threshold_usd_cents: t.arg.int({ required: false, description: `Top up when a debit takes the balance below this: 1 to ${AUTO_RECHARGE_THRESHOLD_MAX}.`, ...rules(AUTO_RECHARGE_RULES.threshold_usd_cents) }),
      amount_usd_cents: t.arg.int({ required: false, description: `Charged to the card and credited per top-up: ${AUTO_RECHARGE_AMOUNT_MIN} to ${AUTO_RECHARGE_AMOUNT_MAX}.`, ...rules(AUTO_RECHARGE_RULES.amount_usd_cents) }),
    },
    resolve: (_root, args, ctx) => setAutoRecharge(ctx.db, args),
  }),
);
