import type { TenantDb } from '../../db/tenant.ts';
import type { Tx } from '../../db/tx.ts';
import { recordEvent } from '../../events/outbox.ts';

/** The control panel's parts a `hosting.panel.changed` event names. */
export const PANEL_PARTS = [
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
 * Records `hosting.panel.changed` (no names, paths or contents: a console tab re-reads what it shows).
 * Given the change's transaction it records inside it; a change the site's driver made on disk
 * records once the driver has done it.
 */
export async function panelChanged(
  db: Tx | TenantDb,
  hosting: { id: string; accountId: string },
  part: PanelPart,
  action: string,
  now: Date,
): Promise<void> {
  const record = (tx: Tx) =>
    recordEvent(tx, hosting.accountId, 'hosting.panel.changed', { hostingId: hosting.id, part, action }, now);
  if ('$transaction' in db) await db.$transaction(record);
  else await record(db);
}
