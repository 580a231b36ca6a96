import { builder } from '../../schema/builder.ts';
import { loadedNode } from '../../schema/node-kinds.ts';
import { example, values } from '../../schema/examples.ts';
import { inputSchema } from '../../schema/input-schemas.ts';
import { idOperation, pagedListQuery } from '../../schema/operation-fields.ts';
import { operationsOf, spends } from '../../schema/operation.ts';
import { offsetConnection, offsetConnectionArgs } from '../../schema/offset-connections.ts';
import { listConnection } from '../../schema/pagination.ts';
import { restPageExtensions } from '../../schema/rest-name.ts';
import { invoicesByIds, countInvoices } from './graph-reads.ts';
import {
  getInvoice,
  INVOICE_PAGE_RULES,
  INVOICE_SOURCES,
  INVOICE_STATES,
  PAYMENT_METHODS,
  INVOICES_PAGE_DEFAULT,
  INVOICES_PAGE_MAX,
  invoiceRange,
  type InvoiceView,
  type PaymentMethod,
} from './invoices.ts';
import {
  AUTO_RECHARGE_AMOUNT_MAX,
  AUTO_RECHARGE_RULES,
  AUTO_RECHARGE_AMOUNT_MIN,
  AUTO_RECHARGE_THRESHOLD_MAX,
  getWallet,
  listWalletTransactions,
  quoteAutoRecharge,
  setAutoRecharge,
  type WalletView,
  walletTransactionsByIds,
} from './service.ts';
import { PAYMENT_RULES, payOpenInvoice, quoteInvoicePayment, quoteTopUp, topUpWallet } from './payments.ts';
import type { GatewayName } from '../../provider/payments.ts';
import { GATEWAYS } from '../../provider/payments.ts';
import { AUTO_RECHARGE_GATEWAYS, MOVEMENT_KINDS, WALLET_STATES } from './wallet.ts';
import { billingArea } from './manifest.ts';

const op = operationsOf(billingArea);

// REST casing (docs/REFERENCE.md: Billing): invoices are camelCase like their events (invoiceNumber,
// totalUsdCents); the wallet and its ledger are snake_case like its request fields (`restCase: 'snake'`).

const InvoiceItem = builder.objectRef<InvoiceView['items'][number]>('InvoiceItem').implement({
  description: 'A line of an invoice.',
  fields: (t) => ({
    description: t.exposeString('description', {
      description: 'What the line bills.',
      ...example('Server "web-1" (std-1c-2g-50)'),
    }),
    amountUsdCents: t.exposeInt('amountUsdCents', { description: 'Amount in US cents.' }),
    periodStart: t.expose('periodStart', {
      type: 'DateTime',
      nullable: true,
      description: 'Start of the period billed (renewals).',
    }),
    periodEnd: t.expose('periodEnd', {
      type: 'DateTime',
      nullable: true,
      description: 'End of the period billed (renewals), exclusive.',
    }),
  }),
});

export const Invoice = builder.node(builder.objectRef<InvoiceView>('Invoice'), {
  ...loadedNode('Invoice', {
    prefix: 'inv',
    scope: 'billing:read',
    id: { description: 'The invoice id (inv_…).' },
    load: (ctx, ids) => invoicesByIds(ctx.db, ids),
  }),
  description: 'An invoice with its line items; amounts in integer US cents.',
  fields: (t) => ({
    number: t.exposeString('number', { description: 'INV-<year>-<6 digits>, gap-free per year.' }),
    status: t.exposeString('status', { ...values(INVOICE_STATES, 'paid'), description: 'open, paid or void.' }),
    source: t.exposeString('source', {
      ...values(INVOICE_SOURCES, 'renewal'),
      description: 'order, renewal or operator.',
    }),
    currency: t.exposeString('currency', { description: 'Always USD.' }),
    totalUsdCents: t.exposeInt('totalUsdCents', { description: 'Sum of the lines, in US cents.' }),
    reference: t.exposeString('reference', {
      nullable: true,
      description: 'The resource it bills (srv_..., pool_..., dom_...).',
    }),
    items: t.field({ type: [InvoiceItem], description: 'Its lines.', resolve: (i) => i.items }),
    dueAt: t.expose('dueAt', { type: 'DateTime', description: 'When payment is due.' }),
    paidAt: t.expose('paidAt', {
      type: 'DateTime',
      nullable: true,
      description: 'When it was paid; null unless paid.',
    }),
    paidWith: t.exposeString('paidWith', {
      nullable: true,
      ...values(PAYMENT_METHODS),
      description: 'wallet, card, online or crypto.',
    }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When it was issued.' }),
  }),
});

// GraphQL's invoices are the invoices' connection (an offset connection: plugin-relay's cursors
// and PageInfo); REST pages them by number as the spec says (`page`, `limit`), its envelope
// `InvoicePage` projected from that connection (rest-view.ts, rest-projection.ts).
const InvoiceConnection = listConnection(Invoice);
const INVOICES_META = {
  summary: 'List invoices',
  scope: 'billing:read',
  rest: 'GET /billing/invoices',
  toolVerb: 'list',
  description: 'The invoices of the account, newest first, by page number (page, limit; total counts them all).',
} as const;
const INVOICES = op({
  ...INVOICES_META,
  description:
    'The invoices of the account, newest first: a connection, paged with first/after (back with last/before), or by page number (page, first); totalCount counts them all.',
});

builder.queryField('invoices', (t) =>
  t.field({
    ...INVOICES,
    restDescription: op(INVOICES_META).description,
    extensions: {
      ...INVOICES.extensions,
      ...restPageExtensions({
        name: 'InvoicePage',
        description: 'One page of invoices, newest first.',
        data: 'The invoices of this page, newest first.',
        limit: 'Invoices per page.',
        total: 'Invoices in all.',
        defaultLimit: INVOICES_PAGE_DEFAULT,
      }),
    },
    type: InvoiceConnection,
    args: {
      ...offsetConnectionArgs(t, String(INVOICES_PAGE_DEFAULT), INVOICES_PAGE_MAX),
      first: t.arg.int({
        required: false,
        restName: 'limit',
        description: `Invoices per page, 1 to ${INVOICES_PAGE_MAX} (default ${INVOICES_PAGE_DEFAULT}).`,
        ...inputSchema(INVOICE_PAGE_RULES.limit),
      }),
      page: t.arg.int({
        required: false,
        description: 'Page number, from 1 (default 1): the page starts after (page − 1) × first invoices.',
        restDescription: 'Page number, from 1 (default 1).',
        ...inputSchema(INVOICE_PAGE_RULES.page),
      }),
    },
    resolve: (_root, args, ctx) =>
      offsetConnection(
        args,
        { defaultSize: INVOICES_PAGE_DEFAULT, maxSize: INVOICES_PAGE_MAX },
        (offset, limit) => invoiceRange(ctx.db, offset, limit),
        () => countInvoices(ctx.db),
      ),
  }),
);

idOperation({
  root: 'query',
  name: 'invoice',
  type: Invoice,
  idDescription: 'The invoice id.',
  run: (ctx, id) => getInvoice(ctx.db, id),
  operation: op({
    summary: 'Get an invoice',
    scope: 'billing:read',
    rest: 'GET /billing/invoices/:id',
    toolVerb: 'get',
    description: 'One invoice with its line items, total and payment state.',
  }),
});

const AutoRecharge = builder.objectRef<WalletView['autoRecharge']>('WalletAutoRecharge').implement({
  description:
    'Automatic top-up through the card gateway when a debit takes the balance below the threshold (once per drop).',
  restCase: 'snake',
  fields: (t) => ({
    enabled: t.exposeBoolean('enabled', { description: 'True when auto-recharge is on.' }),
    thresholdUsdCents: t.exposeInt('thresholdUsdCents', {
      nullable: true,
      description: 'Top up when a debit takes the balance below this, in US cents; null when not set.',
    }),
    amountUsdCents: t.exposeInt('amountUsdCents', {
      nullable: true,
      description: 'Charged to the card and credited per top-up, in US cents; null when not set.',
    }),
    gateway: t.exposeString('gateway', {
      ...values(AUTO_RECHARGE_GATEWAYS),
      description: 'The gateway top-ups go through: card.',
    }),
  }),
});

export const Wallet = builder.objectRef<WalletView>('Wallet').implement({
  description: 'The prepaid wallet: balance in integer US cents and auto-recharge settings.',
  restCase: 'snake',
  fields: (t) => ({
    balanceUsdCents: t.exposeInt('balanceUsdCents', {
      description: 'Never negative.',
    }),
    currency: t.exposeString('currency', { description: 'Always USD.' }),
    state: t.exposeString('state', {
      ...values(WALLET_STATES),
      description: 'active, or low when auto-recharge is on and the balance is under its threshold.',
    }),
    autoRecharge: t.expose('autoRecharge', { type: AutoRecharge, description: 'Automatic top-up settings.' }),
    updatedAt: t.expose('updatedAt', {
      type: 'DateTime',
      description: 'When the balance or settings last changed.',
    }),
  }),
});

builder.queryField('wallet', (t) =>
  t.field({
    ...op({
      summary: 'Get the wallet',
      scope: 'billing:read',
      rest: 'GET /billing/wallet',
      toolVerb: 'get',
      description: 'The prepaid wallet balance in cents and its auto-recharge settings.',
    }),
    type: Wallet,
    resolve: (_root, _args, ctx) => getWallet(ctx.db),
  }),
);

type TxnPage = Awaited<ReturnType<typeof listWalletTransactions>>;
export const WalletTransaction = builder.node(builder.objectRef<TxnPage['data'][number]>('WalletTransaction'), {
  ...loadedNode('WalletTransaction', {
    prefix: 'txn',
    scope: 'billing:read',
    id: { description: 'The transaction id (txn_…).' },
    load: (ctx, ids) => walletTransactionsByIds(ctx.db, ids),
  }),
  description: 'One movement of the wallet ledger.',
  restCase: 'snake',
  fields: (t) => ({
    amountUsdCents: t.exposeInt('amountUsdCents', {
      description: 'Signed: credits positive, debits negative.',
    }),
    balanceAfterUsdCents: t.exposeInt('balanceAfterUsdCents', {
      description: 'Wallet balance after it, in US cents.',
    }),
    kind: t.exposeString('kind', {
      ...values(MOVEMENT_KINDS, 'invoice_payment'),
      description:
        'opening_balance, deposit, auto_recharge, invoice_payment, addon_purchase, pool_purchase or pool_resize.',
    }),
    description: t.exposeString('description', {
      description: 'What it was for, in words.',
      ...example('Invoice INV-2026-000042'),
    }),
    gateway: t.exposeString('gateway', {
      nullable: true,
      ...values(GATEWAYS),
      description: 'card, online or crypto for deposits.',
    }),
    reference: t.exposeString('reference', {
      nullable: true,
      ...example('inv_01jq8k2m4p6rab3c5d7e9f1g2h'),
      description: 'What it was for (inv_..., srv_..., pool_...) or the gateway charge id of a deposit.',
    }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When it was booked.' }),
  }),
});

const WalletTransactionConnection = listConnection(WalletTransaction);

pagedListQuery({
  name: 'walletTransactions',
  type: WalletTransactionConnection,
  list: (ctx, args) => listWalletTransactions(ctx.db, args),
  operation: op({
    summary: 'List wallet transactions',
    scope: 'billing:read',
    rest: 'GET /billing/wallet/transactions',
    toolVerb: 'list',
    description: 'Credits and debits of the wallet, newest first, each with the balance after it.',
  }),
});

builder.mutationField('walletAutoRechargeSet', (t) =>
  t.field({
    ...op({
      summary: 'Set auto-recharge',
      scope: 'billing:write',
      rest: 'PATCH /billing/wallet/auto-recharge',
      consequence: spends((ctx, a) =>
        quoteAutoRecharge(ctx.db, {
          enabled: a.enabled as boolean | null,
          thresholdUsdCents: a.thresholdUsdCents as number | null,
          amountUsdCents: a.amountUsdCents as number | null,
        }),
      ),
      description:
        'Turn wallet auto-recharge on or off and set its threshold and top-up amount: when a debit takes the balance below the threshold, the card on file is charged the amount and the wallet credited. Answers the wallet.',
    }),
    type: Wallet,
    restCase: 'snake',
    args: {
      enabled: t.arg.boolean({ required: false, description: 'Auto-recharge on or off.' }),
      thresholdUsdCents: t.arg.int({
        required: false,
        description: `Top up when a debit takes the balance below this: 1 to ${AUTO_RECHARGE_THRESHOLD_MAX}.`,
        ...inputSchema(AUTO_RECHARGE_RULES.threshold_usd_cents),
      }),
      amountUsdCents: t.arg.int({
        required: false,
        description: `Charged to the card and credited per top-up: ${AUTO_RECHARGE_AMOUNT_MIN} to ${AUTO_RECHARGE_AMOUNT_MAX}.`,
        ...inputSchema(AUTO_RECHARGE_RULES.amount_usd_cents),
      }),
    },
    resolve: (_root, args, ctx) => setAutoRecharge(ctx.db, args),
  }),
);

// The customer's payments (API 1.16): in the `purchases` MCP toolset, which spends the account's
// money and so is offered only when a client asks for it (the billing manifest declares it).

builder.mutationField('invoicePay', (t) =>
  t.field({
    ...op({
      summary: 'Pay an invoice',
      scope: 'billing:write',
      rest: 'POST /billing/invoices/:id/pay',
      consequence: spends((ctx, a) => quoteInvoicePayment(ctx, String(a.id), a.gateway as PaymentMethod)),
      toolset: 'purchases',
      description:
        "Pay one of the account's open invoices from the wallet or through a payment gateway (card, online payment service or cryptocurrency; the gateways here are simulated and never decline). Paying a renewal invoice moves its period on and lifts a suspension it caused. 409 when the invoice is not open; 400 with nothing taken when the wallet balance is short. Answers the paid invoice.",
      fires: ['invoice.paid'],
    }),
    type: Invoice,
    args: {
      id: t.arg.id({ required: true, description: 'The invoice id (inv_…).' }),
      gateway: t.arg.string({
        required: true,
        description: 'wallet, card, online or crypto.',
        ...inputSchema(PAYMENT_RULES.invoiceGateway),
      }),
    },
    resolve: (_root, args, ctx) => payOpenInvoice(ctx, String(args.id), args.gateway as PaymentMethod),
  }),
);

builder.mutationField('walletDeposit', (t) =>
  t.field({
    ...op({
      summary: 'Top up the wallet',
      scope: 'billing:write',
      rest: 'POST /billing/wallet/deposits',
      consequence: spends((ctx, a) => quoteTopUp(ctx, a.amountUsdCents as number, a.gateway as GatewayName)),
      toolset: 'purchases',
      description:
        'Add money to the prepaid wallet, charged through a payment gateway (card, online payment service or cryptocurrency; simulated here, never declining). Answers the deposit as a wallet transaction with the balance after it.',
      fires: ['wallet.deposit.received'],
    }),
    type: WalletTransaction,
    restCase: 'snake',
    args: {
      amountUsdCents: t.arg.int({
        required: true,
        description: `Amount in US cents: ${PAYMENT_RULES.amount_usd_cents.minValue} to ${PAYMENT_RULES.amount_usd_cents.maxValue}.`,
        ...inputSchema(PAYMENT_RULES.amount_usd_cents),
      }),
      gateway: t.arg.string({
        required: true,
        description: 'card, online or crypto.',
        ...inputSchema(PAYMENT_RULES.topUpGateway),
      }),
    },
    resolve: (_root, args, ctx) => topUpWallet(ctx, args.amountUsdCents, args.gateway as GatewayName),
  }),
);
