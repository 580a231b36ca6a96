import { describe, expect, it } from 'vitest';
import { addMonths, cycleOf, prorate } from '../../src/modules/billing/proration.ts';
import { growthPrice, monthlyPrice } from '../../src/modules/pools/service.ts';

const d = (s: string) => new Date(s);

describe('proration (docs/REFERENCE.md: Proration)', () => {
  it('the cycle is the calendar month before the renewal date; a started day counts as a full day', () => {
    expect(cycleOf(d('2026-03-01T00:00:00Z'), d('2026-02-15T12:00:00Z'))).toEqual({ daysLeft: 14, cycleDays: 28 });
    expect(cycleOf(d('2026-08-01T00:00:00Z'), d('2026-07-31T23:59:59Z'))).toEqual({ daysLeft: 1, cycleDays: 31 });
    expect(cycleOf(d('2026-08-01T00:00:00Z'), d('2026-07-01T00:00:00Z'))).toEqual({ daysLeft: 31, cycleDays: 31 });
    expect(cycleOf(d('2026-08-01T00:00:00Z'), d('2026-08-02T00:00:00Z'))).toEqual({ daysLeft: 0, cycleDays: 31 });
  });

  it('amount = monthly × daysLeft / cycleDays, rounded half up to the cent', () => {
    expect(prorate(1000, { daysLeft: 15, cycleDays: 30 })).toBe(500);
    expect(prorate(1000, { daysLeft: 1, cycleDays: 30 })).toBe(33); // 33.33
    expect(prorate(1000, { daysLeft: 2, cycleDays: 30 })).toBe(67); // 66.67
    expect(prorate(300, { daysLeft: 1, cycleDays: 8 })).toBe(38); // 37.5 rounds up
    expect(prorate(2900, { daysLeft: 31, cycleDays: 31 })).toBe(2900);
    expect(prorate(2900, { daysLeft: 0, cycleDays: 31 })).toBe(0);
    expect(prorate(0, { daysLeft: 10, cycleDays: 30 })).toBe(0);
    expect(() => prorate(1.5, { daysLeft: 1, cycleDays: 30 })).toThrow();
  });

  it('adds calendar months, clamping to the month end', () => {
    expect(addMonths(d('2026-01-31T10:00:00Z'), 1).toISOString()).toBe('2026-02-28T10:00:00.000Z');
    expect(addMonths(d('2028-01-31T10:00:00Z'), 1).toISOString()).toBe('2028-02-29T10:00:00.000Z');
    expect(addMonths(d('2026-12-15T00:00:00Z'), 1).toISOString()).toBe('2027-01-15T00:00:00.000Z');
    expect(addMonths(d('2026-03-31T00:00:00Z'), -1).toISOString()).toBe('2026-02-28T00:00:00.000Z');
  });
});

describe('pool pricing', () => {
  const rates = { vcpu: 400, ram2gb: 500, disk100: 300, ip16: 3200 };
  it('prices a shape per unit', () => {
    expect(monthlyPrice({ vcpu: 8, ram2gb: 8, disk100: 2, ip16: 1 }, rates)).toBe(3200 + 4000 + 600 + 3200);
  });
  it('charges growth only; shrinking units are not netted against growth', () => {
    const from = { vcpu: 8, ram2gb: 8, disk100: 2, ip16: 1 };
    expect(growthPrice(from, { ...from, vcpu: 10, disk100: 1 }, rates)).toBe(800);
    expect(growthPrice(from, { ...from, vcpu: 4 }, rates)).toBe(0);
    expect(growthPrice(from, from, rates)).toBe(0);
  });
});
