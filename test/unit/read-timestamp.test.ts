import { describe, expect, it } from 'vitest';
import { ReadDate, readTimestamp } from '../../src/db/model-rows.ts';

// A statement's timestamps become ReadDates that answer toISOString from the database's text;
// that text must be exactly what the instant's own toISOString gives, in every form PostgreSQL writes.
describe('readTimestamp', () => {
  it('pads every UTC form PostgreSQL writes (0 to 3 fraction digits) into the API’s text', () => {
    const cases: [string, string][] = [
      ['2026-11-24T05:35:12.523+00:00', '2026-11-24T05:35:12.523Z'],
      ['2026-11-24T05:35:12.52+00:00', '2026-11-24T05:35:12.520Z'],
      ['2026-11-24T05:35:12.5+00:00', '2026-11-24T05:35:12.500Z'],
      ['2026-11-24T05:35:12+00:00', '2026-11-24T05:35:12.000Z'],
    ];
    for (const [text, iso] of cases) {
      const date = readTimestamp(text);
      expect(date).toBeInstanceOf(ReadDate);
      expect(date.toISOString()).toBe(iso);
      expect(new Date(date.getTime()).toISOString()).toBe(iso);
      expect(JSON.stringify(date)).toBe(`"${iso}"`);
    }
  });

  it('parses any other offset as a plain Date', () => {
    const date = readTimestamp('2026-11-24T06:35:12.5+01:00');
    expect(date).not.toBeInstanceOf(ReadDate);
    expect(date.toISOString()).toBe('2026-11-24T05:35:12.500Z');
  });

  it('keeps the instant and the text in step across many instants', () => {
    for (let ms = Date.UTC(1999, 11, 31, 23, 59, 59, 0); ms < Date.UTC(2100, 0, 1); ms += 9_876_543_217) {
      const iso = new Date(ms).toISOString();
      // PostgreSQL's form: +00:00, trailing fraction zeros dropped (and the point with them).
      const [seconds, fraction] = iso.slice(0, -1).split('.');
      const digits = fraction.replace(/0+$/, '');
      const text = `${seconds}${digits ? `.${digits}` : ''}+00:00`;
      const date = readTimestamp(text);
      expect([date.getTime(), date.toISOString()]).toEqual([ms, iso]);
    }
  });
});
