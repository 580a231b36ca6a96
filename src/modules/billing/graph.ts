import { builder } from '../../schema/builder.ts';
import {
  connectionAfter,
  connectionArgs,
  connectionOf,
  connectionOfPage,
  connectionType,
  edge,
  pageForConnection,
  pageSize,
} from '../../schema/graph.ts';
import { countInvoices, invoicePage } from './graph-reads.ts';
import { Invoice, Wallet, WalletTransaction } from './schema.ts';
import { getWallet, listWalletTransactions } from './service.ts';

// Billing in the graph: Account.wallet → transactions, Account.invoices (with their line items).

const InvoiceConnection = connectionType('Invoice', Invoice);
const WalletTransactionConnection = connectionType('WalletTransaction', WalletTransaction);

builder.prismaObjectFields('Account', (t) => ({
  wallet: t.field({
    ...edge('billing:read'),
    type: Wallet,
    description: 'The prepaid wallet.',
    resolve: (_a, _args, ctx) => getWallet(ctx.db),
  }),
}));

builder.objectField(Wallet, 'transactions', (t) =>
  t.field({
    ...edge('billing:read'),
    type: WalletTransactionConnection,
    description: 'Ledger rows, newest first.',
    args: connectionArgs(t),
    resolve: async (_w, args, ctx) =>
      connectionOfPage(
        await pageForConnection(listWalletTransactions(ctx.db, { limit: pageSize(args), cursor: args.after })),
        undefined,
        args.after,
      ),
  }),
);

builder.prismaObjectFields('Account', (t) => ({
  invoices: t.field({
    ...edge('billing:read'),
    type: InvoiceConnection,
    description: 'Invoices with their line items (`items`), newest first.',
    args: connectionArgs(t),
    resolve: async (_a, args, ctx) => {
      const first = pageSize(args);
      const rows = await invoicePage(ctx.db, first, connectionAfter(args, 'inv'));
      return connectionOf(rows, first, () => countInvoices(ctx.db), args.after);
    },
  }),
}));
