/**
 * Proration of a monthly price to the end of the current billing cycle (docs/REFERENCE.md: Proration).
 *
 * - The cycle is the calendar month ending at the renewal date (`paidUntil` minus one month
 *   to `paidUntil`), so its length is 28 to 31 days.
 * - Days left are counted in whole days, a started day counting as a full day.
 * - amount = monthly × daysLeft / cycleDays, rounded half up to the cent, in integer arithmetic.
 */
const DAY_MS = 86_400_000;

export interface Cycle {
  daysLeft: number;
  cycleDays: number;
}

export function cycleOf(paidUntil: Date, now: Date): Cycle {
  const start = addMonths(paidUntil, -1);
  const cycleDays = Math.round((paidUntil.getTime() - start.getTime()) / DAY_MS);
  const left = Math.ceil((paidUntil.getTime() - now.getTime()) / DAY_MS);
  return { daysLeft: Math.min(cycleDays, Math.max(0, left)), cycleDays };
}

export function prorate(monthlyUsdCents: number, cycle: Cycle): number {
  if (!Number.isSafeInteger(monthlyUsdCents) || monthlyUsdCents < 0)
    throw new Error('monthly price must be a non-negative integer of cents');
  if (cycle.daysLeft <= 0) return 0;
  return Math.floor((2 * monthlyUsdCents * cycle.daysLeft + cycle.cycleDays) / (2 * cycle.cycleDays));
}

/** Adds calendar months in UTC; the day is clamped to the target month's length (Jan 31 + 1 → Feb 28/29). */
export function addMonths(date: Date, months: number): Date {
  const d = new Date(date);
  const day = d.getUTCDate();
  d.setUTCDate(1);
  d.setUTCMonth(d.getUTCMonth() + months);
  const last = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 0)).getUTCDate();
  d.setUTCDate(Math.min(day, last));
  return d;
}
