import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { brokenAnchors, strayReferences } from '../helpers/markdown-links.ts';
import { ROOT } from '../helpers/process.ts';

/** The README, every Markdown file under docs/ and the benchmarks' README. */
function markdownFiles(): string[] {
  const under = (dir: string) =>
    fs.existsSync(path.join(ROOT, dir))
      ? (fs.readdirSync(path.join(ROOT, dir), { recursive: true }) as string[])
          .filter((f) => f.endsWith('.md'))
          .map((f) => `${dir}/${f.split(path.sep).join('/')}`)
      : [];
  return ['README.md', ...under('docs'), 'bench/README.md'].filter((f) => fs.existsSync(path.join(ROOT, f)));
}

const readInRepo = (p: string) =>
  fs.existsSync(path.join(ROOT, p)) ? fs.readFileSync(path.join(ROOT, p), 'utf8') : undefined;

const inRepo = (p: string) => fs.existsSync(path.join(ROOT, p));

describe('README and docs/*.md are self-contained', () => {
  for (const file of markdownFiles()) {
    it(`${file}: every link and path stays in the repository and names a file that exists`, () => {
      expect(strayReferences(file, fs.readFileSync(path.join(ROOT, file), 'utf8'), inRepo)).toEqual([]);
    });

    it(`${file}: every link to a heading names a heading that exists`, () => {
      expect(brokenAnchors(file, fs.readFileSync(path.join(ROOT, file), 'utf8'), readInRepo)).toEqual([]);
    });
  }

  it('README links the specification and the design it builds on, copied into docs/', () => {
    const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
    expect(readme).toContain('](docs/spec/cloud-account-api.md)');
    expect(readme).toContain('](docs/DESIGN.md)');
  });

  it('the check finds each kind of stray reference', () => {
    const sample = [
      'See [the spec](../shared/spec/cloud-account-api.md) and [design](docs/MISSING.md).',
      'Also [abs](/work/shared/DESIGN.md), [file](file:///etc/hosts) and <img src="nope.png">.',
      'The plan is `../shared/DESIGN.md`; logs in /home/ada/svc.log.',
      '[ref]: ./gone.md',
      'Fine: [ok](README.md#run-it), [web](https://example.com/x), [here](#tour), `.../mcp`, /v1/servers, /usr/bin/chromium.',
    ].join('\n');
    expect(strayReferences('README.md', sample, (p) => p === 'README.md')).toEqual([
      '../shared/spec/cloud-account-api.md: leaves the repository',
      'docs/MISSING.md: no such file (docs/MISSING.md)',
      '/work/shared/DESIGN.md: leaves the repository',
      'file:///etc/hosts: leaves the repository',
      './gone.md: no such file (gone.md)',
      'nope.png: no such file (nope.png)',
      '../shared/spec/cloud-account-api.md: leaves the repository',
      '../shared/DESIGN.md: leaves the repository',
      '/work/shared/DESIGN.md: an absolute path on one machine',
      '/home/ada/svc.log: an absolute path on one machine',
    ]);
    // From a file under docs/, `../` that stays in the repository is a relative link like any other.
    const nested = 'Run it: [README](../README.md#run-it), `../src/app.ts`; not [this](../../outside.md) or `../../x`.';
    expect(strayReferences('docs/REFERENCE.md', nested, (p) => p === 'README.md' || p === 'src/app.ts')).toEqual([
      '../../outside.md: leaves the repository',
      '../../outside.md: leaves the repository',
      '../../x: leaves the repository',
    ]);
  });

  it('the check finds each link to a heading that does not exist', () => {
    const files: Record<string, string> = {
      'README.md': '# Title\n## Run it\n```sh\n# not a heading\n```\n## What changed for clients\n## Run it\n',
      'docs/REFERENCE.md': '# Reference\n## The graph (GraphQL)\n### OAuth 2.0 device flow\n',
    };
    const text = [
      '[a](../README.md#run-it) [b](../README.md#run-it-1) [c](../README.md#what-changed-for-clients)',
      '[d](#the-graph-graphql) [e](#oauth-20-device-flow) [f](REFERENCE.md#errors) [g](../README.md#not-a-heading)',
      '[h](https://example.com/#x) [i](../src/app.ts#L1) [j](../README.md#run-it-2)',
    ].join('\n');
    expect(brokenAnchors('docs/REFERENCE.md', text, (p) => files[p])).toEqual([
      'REFERENCE.md#errors: no heading #errors in docs/REFERENCE.md',
      '../README.md#not-a-heading: no heading #not-a-heading in README.md',
      '../README.md#run-it-2: no heading #run-it-2 in README.md',
    ]);
  });
});
