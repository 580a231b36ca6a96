import type { Locator, Page } from 'playwright-core';
import { expect } from 'vitest';
import { axeViolations, pageWidth } from './browser.ts';

/** The texts a control's aria-describedby points at (its hint, its error …), joined by " | ". */
export const describedText = (control: Locator) =>
  control.evaluate((el) =>
    (el.getAttribute('aria-describedby') ?? '')
      .split(' ')
      .map((id) => document.getElementById(id)?.textContent ?? '')
      .join(' | '),
  );

/** The page as it stands, at the window's size now: no sideways scroll and no serious axe-core violation. */
export async function fitsAndPasses(page: Page, what: string): Promise<void> {
  const width = await pageWidth(page);
  expect(width.scroll, `${what} at ${width.window}px`).toBeLessThanOrEqual(width.window);
  expect(await axeViolations(page), `${what} at ${width.window}px`).toEqual([]);
}
