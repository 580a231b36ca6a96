import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/process.ts';

/** System paths a reader has on their own machine (Debian's Chromium), not files of the project. */
const SYSTEM_PATHS = new Set(['/usr/bin/chromium']);

/**
 * What in a Markdown file at `file` (relative to the repository root) points outside the
 * repository or at a file of it that does not exist: link and image targets, reference
 * definitions, href/src attributes, `../` anywhere in the text, and absolute file paths.
 */
export function strayReferences(file: string, text: string, exists: (p: string) => boolean): string[] {
  const found: string[] = [];
  const targets = [
    ...[...text.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((m) => m[1]),
    ...[...text.matchAll(/^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)/gm)].map((m) => m[1]),
    ...[...text.matchAll(/\b(?:href|src)=["']([^"']+)["']/g)].map((m) => m[1]),
  ];
  for (const target of targets) {
    if (/^(https?|mailto):/i.test(target) || target.startsWith('#')) continue;
    const bare = decodeURIComponent(target.replace(/[#?].*$/, ''));
    const resolved = path.posix.normalize(path.posix.join(path.posix.dirname(file), bare));
    if (/^[a-z][\w+.-]*:/i.test(target) || bare.startsWith('/') || resolved.startsWith('..')) found.push(`${target}: leaves the repository`);
    else if (!exists(resolved)) found.push(`${target}: no such file (${resolved})`);
  }
  // A sentence's full stop or comma after a path is not part of it.
  const paths = (re: RegExp) => [...text.matchAll(re)].map((m) => m[0].replace(/[.,;:]+$/, ''));
  for (const p of paths(/(?<![\w.])\.\.\/[^\s)`'"]*/g)) found.push(`${p}: leaves the repository`);
  for (const p of paths(/(?<![\w.:/~-])\/(?:work|home|Users|root|tmp|var|opt|srv|mnt|usr|etc)\/[^\s)`'"]*/g)) {
    if (!SYSTEM_PATHS.has(p)) found.push(`${p}: an absolute path on one machine`);
  }
  return found;
}

function markdownFiles(): string[] {
  const docs = fs.existsSync(path.join(ROOT, 'docs'))
    ? (fs.readdirSync(path.join(ROOT, 'docs'), { recursive: true }) as string[]).filter((f) => f.endsWith('.md')).map((f) => `docs/${f.split(path.sep).join('/')}`)
    : [];
  return ['README.md', ...docs];
}

const inRepo = (p: string) => fs.existsSync(path.join(ROOT, p));

describe('README and docs/*.md are self-contained', () => {
  for (const file of markdownFiles()) {
    it(`${file}: every link and path stays in the repository and names a file that exists`, () => {
      expect(strayReferences(file, fs.readFileSync(path.join(ROOT, file), 'utf8'), inRepo)).toEqual([]);
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
  });
});
