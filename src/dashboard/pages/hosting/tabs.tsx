import type { JSX } from 'preact';
import { DomainPanel } from './domain.tsx';
import { FilesPanel } from './files.tsx';
import { TerminalPanel } from './terminal.tsx';
import { BackupsPanel } from './backups.tsx';
import { CertificatePanel } from './certificate.tsx';
import { CronPanel } from './cron.tsx';
import { DatabasesPanel } from './databases.tsx';
import { FirewallPanel } from './firewall.tsx';
import { GitPanel } from './git.tsx';
import { LogsPanel } from './logs.tsx';
import { PhpPanel } from './php.tsx';
import { ProtectedDirsPanel } from './protected-dirs.tsx';
import { StatsPanel } from './stats.tsx';

/**
 * One tab of a hosting account's control panel: its slug (the last part of the page's path,
 * /hosting/:id/:slug), its label, and the panel it shows for the account.
 */
export interface HostingTab {
  slug: string;
  label: string;
  Panel(props: { id: string }): JSX.Element;
}

/** The control panel's tabs, in the order the page shows them. */
export const HOSTING_TABS: HostingTab[] = [
  { slug: 'files', label: 'Files', Panel: FilesPanel },
  { slug: 'domain', label: 'Domain', Panel: DomainPanel },
  { slug: 'terminal', label: 'Terminal', Panel: TerminalPanel },
  { slug: 'backups', label: 'Backups', Panel: BackupsPanel },
  { slug: 'databases', label: 'Databases', Panel: DatabasesPanel },
  { slug: 'cron', label: 'Cron', Panel: CronPanel },
  { slug: 'php', label: 'PHP', Panel: PhpPanel },
  { slug: 'firewall', label: 'Firewall', Panel: FirewallPanel },
  { slug: 'logs', label: 'Logs', Panel: LogsPanel },
  { slug: 'git', label: 'Git deploy', Panel: GitPanel },
  { slug: 'protected', label: 'Protected directories', Panel: ProtectedDirsPanel },
  { slug: 'certificate', label: 'Certificate', Panel: CertificatePanel },
  { slug: 'stats', label: 'Statistics', Panel: StatsPanel },
];
