// What test/readme/links.test.ts checks in a Markdown text: references leaving the repository, links to missing headings.
import path from 'node:path';

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
    if (/^[a-z][\w+.-]*:/i.test(target) || bare.startsWith('/') || resolved.startsWith('..'))
      found.push(`${target}: leaves the repository`);
    else if (!exists(resolved)) found.push(`${target}: no such file (${resolved})`);
  }
  // A sentence's full stop or comma after a path is not part of it.
  const paths = (re: RegExp) => [...text.matchAll(re)].map((m) => m[0].replace(/[.,;:]+$/, ''));
  // `../` in the text leaves the repository when it climbs above the root from where the file is.
  for (const p of paths(/(?<![\w.])\.\.\/[^\s)`'"]*/g)) {
    if (path.posix.normalize(path.posix.join(path.posix.dirname(file), p)).startsWith('..'))
      found.push(`${p}: leaves the repository`);
  }
  for (const p of paths(/(?<![\w.:/~-])\/(?:work|home|Users|root|tmp|var|opt|srv|mnt|usr|etc)\/[^\s)`'"]*/g)) {
    if (!SYSTEM_PATHS.has(p)) found.push(`${p}: an absolute path on one machine`);
  }
  return found;
}

/** The anchors GitHub gives the headings of a Markdown text (fenced code skipped). */
function headingAnchors(text: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  let fenced = false;
  for (const line of text.split('\n')) {
    if (/^\s{0,3}(```|~~~)/.test(line)) fenced = !fenced;
    const m = !fenced && /^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!m) continue;
    const slug = m[1]
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const n = seen.get(slug) ?? 0;
    seen.set(slug, n + 1);
    anchors.add(n === 0 ? slug : `${slug}-${n}`);
  }
  return anchors;
}

/**
 * Links from the Markdown file `file` to a heading (`#anchor`, `other.md#anchor`) whose Markdown
 * file has no such heading; `read` gives a file's text by its path from the repository root.
 */
export function brokenAnchors(file: string, text: string, read: (p: string) => string | undefined): string[] {
  const found: string[] = [];
  for (const [, target] of text.matchAll(/\]\(\s*<?([^)\s>]*#[^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
    if (/^[a-z][\w+.-]*:/i.test(target)) continue;
    const [bare, anchor] = target.split('#');
    const resolved = bare
      ? path.posix.normalize(path.posix.join(path.posix.dirname(file), decodeURIComponent(bare)))
      : file;
    if (!resolved.endsWith('.md')) continue;
    const linked = read(resolved);
    if (linked !== undefined && !headingAnchors(linked).has(decodeURIComponent(anchor)))
      found.push(`${target}: no heading #${anchor} in ${resolved}`);
  }
  return found;
}
