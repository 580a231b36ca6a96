import type { Locator, Page } from 'playwright-core';

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
