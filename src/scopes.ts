/**
 * The scope vocabulary of the spec, with what each covers. Operations name their scope on
 * their field (src/schema/operation.ts); this is the only list of scope names.
 */
export const SCOPES = {
  'account:read': 'Account profile',
  'servers:read':
    'Server reads, stats, snapshots, IPs, plan options, add-on list, dashboard SSO, pool reads and quotes',
  'servers:write': 'Power, snapshots, PTR, plan change, add-ons, pool buy/resize/servers/IP apply',
  'servers:destroy': 'Reinstall, snapshot revert, server terminate, pool delete (opt-in)',
  'hosting:read': 'Hosting list and detail',
  'hosting:write': 'Hosting custom domain set, verify, remove',
  'hosting:manage': 'The whole hosting control panel, with file and shell access (opt-in)',
  'mail:read': 'Mail domains, mailboxes, aliases and setup records',
  'mail:write': 'Mail domain, mailbox and alias writes',
  'domains:read': 'Domain reads',
  'domains:write': 'Domain updates',
  'billing:read': 'Invoices, wallet and transactions',
  'billing:write': 'Wallet auto-recharge (opt-in)',
  'tickets:read': 'Support ticket reads',
  'tickets:write': 'Support ticket writes',
  'webhooks:read': 'Webhook subscriptions and delivery logs',
  'webhooks:write': 'Webhook subscription writes',
} as const;

export type Scope = keyof typeof SCOPES;
export const ALL_SCOPES = Object.keys(SCOPES) as Scope[];

/** Scopes a credential only gets when asked for by name: they destroy data, open a shell or spend money. */
export const OPT_IN_SCOPES: readonly Scope[] = ['servers:destroy', 'hosting:manage', 'billing:write'];

/** What a key gets when it is minted without a scope list. */
export const DEFAULT_SCOPES: readonly Scope[] = ALL_SCOPES.filter((s) => !OPT_IN_SCOPES.includes(s));

export function isScope(value: string): value is Scope {
  return Object.hasOwn(SCOPES, value);
}
