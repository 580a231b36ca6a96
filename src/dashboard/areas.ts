/** The groups of the console's navigation, in the order it shows them. */
export const NAV_GROUPS = [
  'Compute',
  'Hosting & mail',
  'Domains',
  'Billing',
  'Support',
  'Developer',
  'Settings',
] as const;
type NavGroup = (typeof NAV_GROUPS)[number];

/**
 * The console's areas, in the order the navigation shows them, each in its group: the navigation
 * and the overview's "Manage" list are both drawn from this one list.
 */
export const AREAS: readonly { href: string; label: string; group: NavGroup; what: string }[] = [
  {
    href: '/servers',
    label: 'Servers',
    group: 'Compute',
    what: 'servers: power, snapshots, plans, add-ons, addresses',
  },
  { href: '/pools', label: 'Capacity pools', group: 'Compute', what: 'buy, resize and fill pools of capacity' },
  {
    href: '/hosting',
    label: 'Web hosting',
    group: 'Hosting & mail',
    what: 'sites and their control panel: files, backups, databases',
  },
  {
    href: '/mail',
    label: 'Mail',
    group: 'Hosting & mail',
    what: 'mail domains, their DNS records, mailboxes and aliases',
  },
  { href: '/domains', label: 'Domains', group: 'Domains', what: 'registrations, renewal and auto-renew' },
  { href: '/billing', label: 'Billing', group: 'Billing', what: 'wallet, top-ups, invoices and payments' },
  { href: '/tickets', label: 'Support', group: 'Support', what: 'tickets to support, and their answers' },
  { href: '/keys', label: 'API keys', group: 'Developer', what: 'keys for your programs: mint and revoke' },
  { href: '/apps', label: 'Connected apps', group: 'Developer', what: 'apps you let act for you' },
  { href: '/webhooks', label: 'Webhooks', group: 'Developer', what: 'subscriptions and their delivery log' },
  { href: '/events', label: 'Live events', group: 'Developer', what: "the account's history, live" },
  {
    href: '/settings',
    label: 'Settings',
    group: 'Settings',
    what: 'profile, password, signed-in sessions, SSH keys, invoice e-mail',
  },
];
