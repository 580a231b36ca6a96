import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { newFindings } from '../../.ci/audit.mjs';

/**
 * The dependency audit of .ci/run (`node .ci/audit.mjs`, docs/REFERENCE.md: Security → Dependencies) needs
 * the registry, so CI runs it, not the suite; here its rule is checked offline on a sample
 * `npm audit --json` report: high and critical advisories fail unless allowlisted with a reason.
 */
const report = {
  vulnerabilities: {
    tar: {
      via: [
        {
          source: 1,
          title: 'Path traversal',
          url: 'https://github.com/advisories/GHSA-aaaa',
          severity: 'high',
          range: '<7.5.3',
        },
      ],
    },
    pino: {
      via: [
        {
          source: 2,
          title: 'Slow regex',
          url: 'https://github.com/advisories/GHSA-bbbb',
          severity: 'moderate',
          range: '<1',
        },
      ],
    },
    sofa: { via: ['tar'] },
    ws: {
      via: [
        { source: 3, title: 'DoS', url: 'https://github.com/advisories/GHSA-cccc', severity: 'critical', range: '<8' },
      ],
    },
  },
};

describe('dependency audit rule', () => {
  it('fails on high and critical advisories, not moderate ones or dependency paths', () => {
    expect(newFindings(report, { advisories: [] })).toEqual([
      'tar: high Path traversal (https://github.com/advisories/GHSA-aaaa), affected <7.5.3',
      'ws: critical DoS (https://github.com/advisories/GHSA-cccc), affected <8',
    ]);
  });

  it('passes an allowlisted advisory', () => {
    expect(
      newFindings(report, {
        advisories: [
          { url: 'https://github.com/advisories/GHSA-aaaa' },
          { url: 'https://github.com/advisories/GHSA-cccc' },
        ],
      }),
    ).toEqual([]);
  });

  it('the allowlist gives every exception a package and a reason', () => {
    const list = JSON.parse(fs.readFileSync(new URL('../../.ci/audit-allowlist.json', import.meta.url), 'utf8'));
    for (const a of list.advisories)
      expect(a).toMatchObject({
        url: expect.stringMatching(/^https:\/\//),
        package: expect.any(String),
        reason: expect.stringMatching(/.{20}/),
      });
  });

  it('.ci/run runs it', () => {
    expect(fs.readFileSync(new URL('../../.ci/run', import.meta.url), 'utf8')).toContain('node .ci/audit.mjs');
  });
});
