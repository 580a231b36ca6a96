import { money } from './format.tsx';

/**
 * The console's one translation of the API's input errors into a person's words. The API names
 * the refused value (`param`, GraphQL's `extensions.field`) and starts its sentence with it:
 * "amountUsdCents must be an integer number of cents from 500 to 1000000.". Here that name
 * becomes the form's label and cents become dollars: "Amount must be between $5.00 and
 * $10,000.00.". A sentence that does not start with the name is the API's own plain words and is
 * shown as it is. The API's messages themselves never change (other clients read them).
 */

/** The label of each value a console form sends, by its GraphQL name (REST's snake_case names are read as camelCase). */
const LABELS: Record<string, string> = {
  // billing
  amountUsdCents: 'Amount',
  thresholdUsdCents: 'Threshold',
  gateway: 'Payment method',
  // account and settings
  name: 'Name',
  email: 'E-mail',
  invoiceEmail: 'Invoice e-mail',
  country: 'Country',
  currentPassword: 'Current password',
  newPassword: 'New password',
  password: 'Password',
  publicKey: 'Public key',
  scopes: 'Scopes',
  expiresAt: 'Expiry date',
  // servers and pools
  label: 'Label',
  productId: 'Plan',
  os: 'System',
  osTemplate: 'System',
  sshKeyIds: 'SSH keys',
  addonId: 'Add-on',
  snapshotId: 'Snapshot',
  ip: 'Address',
  hostname: 'Reverse DNS name',
  vcpu: 'vCPUs',
  ram2gb: 'RAM',
  disk100: 'Disk',
  ip16: 'IPv4 blocks',
  ipCount: 'Public addresses',
  changes: 'Changes',
  description: 'Description',
  // hosting
  domain: 'Domain',
  suffix: 'Database name',
  repoUrl: 'Repository URL',
  branch: 'Branch',
  subdir: 'Folder',
  path: 'Path',
  from: 'Name',
  to: 'New name',
  content: 'Content',
  phpVersion: 'PHP version',
  basicUser: 'User name',
  target: 'Target',
  jobs: 'Cron jobs',
  command: 'Command',
  schedule: 'Schedule',
  file: 'File',
  // mail and domains
  localPart: 'Mailbox name',
  sourceLocal: 'Alias name',
  destination: 'Destination',
  quotaMb: 'Quota',
  nameservers: 'Nameservers',
  periodYears: 'Period',
  // support
  subject: 'Subject',
  body: 'Message',
  message: 'Message',
  department: 'Department',
  priority: 'Priority',
  // webhooks and events
  url: 'Endpoint URL',
  events: 'Event kinds',
  resource: 'Resource',
  type: 'Kind',
};

/** One entry of a list the forms send: "Nameserver 2" for `nameservers[1]`. */
const ENTRY_LABELS: Record<string, string> = {
  nameservers: 'Nameserver',
  jobs: 'Job',
  sshKeyIds: 'SSH key',
  changes: 'Change',
  scopes: 'Scope',
  events: 'Event kind',
  items: 'Item',
};

/** `amount_usd_cents` → `amountUsdCents`. */
const camel = (name: string) => name.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());

/** "ipCount" → "Ip count": the words of a name no form labels. */
const words = (name: string) => {
  const spaced = name.replace(/([a-z0-9])([A-Z])/g, '$1 $2').toLowerCase();
  return spaced.charAt(0).toUpperCase() + spaced.slice(1);
};

const labelOfName = (name: string) => LABELS[camel(name)] ?? words(camel(name));

/**
 * The label of a value's path: `amountUsdCents` → "Amount", `nameservers[1]` → "Nameserver 2",
 * `jobs[0].schedule` → "Schedule of job 1".
 */
function labelOf(path: string): string {
  const entry = /^(\w+)\[(\d+)\](?:\.(\w+))?$/.exec(path);
  if (!entry) return labelOfName(path.replace(/^.*\./, ''));
  const [, list, index, field] = entry;
  const nth = `${ENTRY_LABELS[camel(list)] ?? labelOfName(list)} ${Number(index) + 1}`;
  // "of job 1", but "of SSH key 1".
  return field
    ? `${labelOfName(field)} of ${/^[A-Z][a-z]/.test(nth) ? nth.charAt(0).toLowerCase() + nth.slice(1) : nth}`
    : nth;
}

/** Cents in the sentence as dollars: "an integer number of cents from 500 to 1000000" → "between $5.00 and $10,000.00". */
function inDollars(text: string): string {
  const usd = (cents: string) => money(Number(cents));
  return text
    .replace(
      /an integer number of cents from (\d+) to (\d+)/,
      (_, a: string, b: string) => `between ${usd(a)} and ${usd(b)}`,
    )
    .replace(
      /an integer number of cents (at least|at most|exactly) (\d+)/,
      (_, how: string, n: string) => `${how} ${usd(n)}`,
    )
    .replace(/must be an integer\./, 'must be an amount in dollars and cents.');
}

/** What a refused request's message says to a person at the console (see above). */
export function humanError(message: string, param?: string): string {
  if (!param || !message.startsWith(param)) return message;
  const rest = message.slice(param.length);
  if (!/^[\s:]/.test(rest)) return message;
  let text = `${labelOf(param)}${rest}`;
  if (/UsdCents$|_usd_cents$/.test(param.replace(/\[\d+\]$/, ''))) text = inDollars(text);
  // A parenthesis about the request's own names ("the database is named <prefix>_<suffix>") says nothing here.
  return text.replace(/ \([^()]*<[^()]*>[^()]*\)/g, '');
}
