import type { JSX } from 'preact';
import { DomainPanel } from './domain.tsx';
import { FilesPanel } from './files.tsx';
import { TerminalPanel } from './terminal.tsx';

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
];
