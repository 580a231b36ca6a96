import type { TenantDb } from '../../db/tenant.ts';
import type { Tx } from '../../db/tx.ts';
import { recordEvent } from '../../events/outbox.ts';

/** The control panel's parts a `hosting.panel.changed` event names. */
const PANEL_PARTS = [
  'backups',
  'databases',
  'cron',
  'php',
  'customDomain',
  'certificate',
  'git',
  'protectedDirs',
  'files',
  'ssh',
  'waf',
] as const;
export type PanelPart = (typeof PANEL_PARTS)[number];

/**
 * Records `hosting.panel.changed` in the change's transaction (no names, paths or contents: a
 * console tab re-reads what it shows).
 */
export function panelChanged(
  tx: Tx,
  hosting: { id: string; accountId: string },
  part: PanelPart,
  action: string,
  now: Date,
): Promise<string> {
  return recordEvent(tx, hosting.accountId, 'hosting.panel.changed', { hostingId: hosting.id, part, action }, now);
}

/** For a change the site's driver made on disk (files): recorded once the driver has done it. */
export function siteChanged(db: TenantDb, hosting: { id: string; accountId: string }, action: string, now: Date) {
  return db.$transaction((tx) => panelChanged(tx, hosting, 'files', action, now));
}
