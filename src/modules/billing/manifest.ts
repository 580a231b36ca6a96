import { defineArea, int, str, strOf } from '../../core/area.ts';

/** Invoices and the prepaid wallet (docs/DESIGN.md: Areas declare themselves once). */
export const billingArea = defineArea({
  name: 'billing',
  api: {
    tag: 'Invoices, the prepaid wallet, its transactions and auto-recharge. Money is always integer US cents.',
    toolset: { offered: 'by default', order: 5 },
    toolPrefixes: ['invoice', 'invoices', 'wallet'],
  },
  toolsets: { purchases: { offered: 'on request', order: 10 } },
  scopes: {
    'billing:read': 'Invoices, wallet and transactions',
    'billing:write': 'Wallet auto-recharge, top-ups and invoice payments (opt-in)',
  },
  optIn: ['billing:write'],
  events: {
    order: 3,
    kinds: {
      'invoice.created': {
        scope: 'billing:read',
        fields: { invoiceId: str, invoiceNumber: str, status: strOf('open'), totalUsdCents: int, currency: str },
      },
      'invoice.paid': {
        scope: 'billing:read',
        fields: { invoiceId: str, invoiceNumber: str, totalUsdCents: int, currency: str },
      },
      'wallet.deposit.received': {
        scope: 'billing:read',
        fields: { amountUsdCents: int, gateway: str, transactionId: str },
      },
    },
  },
  idPrefixes: { walletTransaction: 'txn', invoice: 'inv', invoiceItem: 'invi' },
});
