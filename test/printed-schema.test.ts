import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { printedArtifacts } from '../src/printed-artifacts.ts';

describe('printed schema artifacts', () => {
  for (const [file, text] of Object.entries(printedArtifacts())) {
    it(`${file} is up to date (run \`npm run print-schema\`)`, () => {
      expect(readFileSync(new URL(`../${file}`, import.meta.url), 'utf8')).toBe(text);
    });
  }
});
