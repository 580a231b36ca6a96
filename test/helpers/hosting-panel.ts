import fs from 'node:fs';
import type { Locator, Page } from 'playwright-core';

/** The panel's tabs test/console/hosting-panel.test.ts covers, by slug and link text. */
export const PANEL_TABS = [
  ['backups', 'Backups'],
  ['databases', 'Databases'],
  ['cron', 'Cron'],
  ['php', 'PHP'],
  ['firewall', 'Firewall'],
  ['logs', 'Logs'],
  ['git', 'Git deploy'],
  ['protected', 'Protected directories'],
  ['certificate', 'Certificate'],
  ['stats', 'Statistics'],
] as const;

/** Waits (20 s at most: a git deploy clones) until the status line in `within` says `text`. */
export const statusSays = (within: Locator, text: string | RegExp) =>
  within.getByRole('status').getByText(text).waitFor({ timeout: 20_000 });

/** Opens a hosting account's tab with its link in the "Control panel" navigation. */
export const clickTab = (page: Page, label: string) =>
  page.getByRole('navigation', { name: 'Control panel' }).getByRole('link', { name: label, exact: true }).click();

/** Confirms the open ConfirmButton dialog with its red button. */
export const confirm = (page: Page, label: string) =>
  page.getByRole('dialog').getByRole('button', { name: label }).click();

/**
 * The cards on the page whose content is wider than they are (they would scroll sideways
 * inside): each as its test id or heading. Tables scroll in their own .table-wrap, not the card.
 */
export const overflowingCards = (page: Page) =>
  page.evaluate(() =>
    [...document.querySelectorAll<HTMLElement>('.card')]
      .filter((card) => card.scrollWidth > card.clientWidth)
      .map((card) => card.dataset.testid ?? card.querySelector('h2')?.textContent ?? '(card)'),
  );

/** Clicks `button` and answers the bytes of the file the browser downloads. */
export async function downloadThrough(button: Locator): Promise<Buffer> {
  const [download] = await Promise.all([button.page().waitForEvent('download'), button.click()]);
  return fs.readFileSync((await download.path()) as string);
}
