/**
 * The console's areas, in the order the header shows them: the header's links and the
 * overview's "Manage" list are both drawn from this one list.
 */
export const AREAS = [
  { href: '/servers', label: 'Servers', what: 'servers: power, snapshots, plans, add-ons, addresses' },
  { href: '/pools', label: 'Capacity pools', what: 'buy, resize and fill pools of capacity' },
  { href: '/hosting', label: 'Web hosting', what: 'sites and their control panel: files, backups, databases' },
  { href: '/mail', label: 'Mail', what: 'mail domains, their DNS records, mailboxes and aliases' },
  { href: '/domains', label: 'Domains', what: 'registrations, renewal and auto-renew' },
  { href: '/tickets', label: 'Support', what: 'tickets to support, and their answers' },
  { href: '/billing', label: 'Billing', what: 'wallet, top-ups, invoices and payments' },
  { href: '/keys', label: 'API keys', what: 'keys for your programs: mint and revoke' },
  { href: '/apps', label: 'Connected apps', what: 'apps you let act for you' },
  { href: '/webhooks', label: 'Webhooks', what: 'subscriptions and their delivery log' },
  { href: '/events', label: 'Live events', what: "the account's history, live" },
  { href: '/settings', label: 'Settings', what: 'profile, password, signed-in sessions, SSH keys, invoice e-mail' },
] as const;
