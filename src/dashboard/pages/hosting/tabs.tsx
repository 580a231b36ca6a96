import type { JSX } from 'preact';

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
export const HOSTING_TABS: HostingTab[] = [];
