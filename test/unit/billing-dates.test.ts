import { describe, expect, it } from 'vitest';
import { formatInvoiceNumber } from '../../src/modules/billing/invoices.ts';
import { GRACE_DAYS, graceEnds, renewalKey } from '../../src/modules/billing/renewals.ts';
import { addMonths } from '../../src/modules/billing/proration.ts';

describe('invoice numbers', () => {
  it('INV-<year>-<6 digits>, wider past a million', () => {
    expect(formatInvoiceNumber(2026, 1)).toBe('INV-2026-000001');
    expect(formatInvoiceNumber(2026, 123)).toBe('INV-2026-000123');
    expect(formatInvoiceNumber(2027, 999_999)).toBe('INV-2027-999999');
    expect(formatInvoiceNumber(2027, 1_000_000)).toBe('INV-2027-1000000');
  });
});

describe('renewal dates', () => {
  it('a renewal period is one calendar month, clamped to the month length', () => {
    expect(addMonths(new Date('2026-01-31T12:00:00Z'), 1).toISOString()).toBe('2026-02-28T12:00:00.000Z');
    expect(addMonths(new Date('2028-01-31T12:00:00Z'), 1).toISOString()).toBe('2028-02-29T12:00:00.000Z');
    expect(addMonths(new Date('2026-12-15T00:00:00Z'), 1).toISOString()).toBe('2027-01-15T00:00:00.000Z');
    expect(addMonths(new Date('2026-09-01T12:00:00Z'), 3).toISOString()).toBe('2026-12-01T12:00:00.000Z');
  });

  it('the grace period ends 3 days after the due date', () => {
    expect(GRACE_DAYS).toBe(3);
    expect(graceEnds(new Date('2026-02-27T10:00:00Z')).toISOString()).toBe('2026-03-02T10:00:00.000Z');
  });

  it('a renewal key names the resource and the period start', () => {
    expect(renewalKey('srv_x', new Date('2026-09-01T12:00:00Z'))).toBe('srv_x@2026-09-01T12:00:00.000Z');
  });
});
