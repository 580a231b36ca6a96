import fs from 'node:fs/promises';
import path from 'node:path';

/**
 * The file-system root of one hosting account and the only way from a customer's path to a
 * file on disk. Customer paths are absolute inside the account ("/public_html/index.php");
 * "/" is the account's home. Every path is refused (PathRefused → 400) rather than repaired
 * when it carries anything a traversal uses:
 *
 * - a NUL byte or any control character;
 * - a backslash (Windows separator) or a drive letter ("C:");
 * - a ".." segment, in any position;
 * - percent-encoding artefacts ("%2e%2e", "%252e", "%00"): the query string was decoded once
 *   already, so a "%xx" left in a path is a second encoding, never a file name we accept;
 * - U+FFFD (what broken or overlong UTF-8 such as "%c0%ae" decodes to);
 * - more than 4096 characters, or a segment longer than 255 bytes.
 *
 * What is left is joined to the root, then checked on disk: the real path (symlinks
 * resolved) of the deepest existing ancestor, and of the target itself when it exists, must
 * lie inside the root's real path, so a symlink pointing outside is refused too.
 */
export class PathRefused extends Error {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(message);
  }
}

const MAX_PATH_CHARS = 4096;
const SEGMENT_MAX_BYTES = 255;

export interface ResolvedPath {
  /** The customer's view, normalised: "/" or "/a/b". */
  rel: string;
  /** Absolute path on disk (inside the root; not symlink-resolved). */
  abs: string;
  /** Absolute, symlink-resolved path when the target exists (what reads and writes open). */
  real: string | null;
  /** lstat of the target when it exists. */
  stat: import('node:fs').Stats | null;
}

/** Normalises a customer path to its segments, refusing every hostile form listed above. */
export function pathSegments(input: unknown, field = 'path'): string[] {
  if (typeof input !== 'string') throw new PathRefused(field, `${field} must be a string.`);
  const refuse = (why: string): never => {
    throw new PathRefused(
      field,
      `${field} ${JSON.stringify(input.length > 200 ? `${input.slice(0, 200)}…` : input)} is refused: ${why}.`,
    );
  };
  if (input.length === 0) refuse('it is empty');
  if (input.length > MAX_PATH_CHARS) refuse(`it is longer than ${MAX_PATH_CHARS} characters`);
  if (input.includes('\0')) refuse('it contains a NUL byte');
  // eslint-disable-next-line no-control-regex
  if (/[\x00-\x1f\x7f]/.test(input)) refuse('it contains a control character');
  if (input.includes('\\')) refuse('backslashes are not path separators here; use "/"');
  if (/^[A-Za-z]:/.test(input)) refuse('Windows drive paths are not paths inside the account');
  if (/%[0-9A-Fa-f]{2}/.test(input)) refuse('it contains percent-encoding; send the path decoded, once');
  if (input.includes('\uFFFD')) refuse('it contains an invalid character (U+FFFD)');
  const segments = input.split('/').filter((s) => s !== '' && s !== '.');
  if (segments.includes('..')) refuse('".." segments are not allowed');
  if (segments.some((s) => Buffer.byteLength(s) > SEGMENT_MAX_BYTES))
    refuse(`a name is longer than ${SEGMENT_MAX_BYTES} bytes`);
  return segments;
}

function inside(root: string, candidate: string): boolean {
  return candidate === root || candidate.startsWith(root + path.sep);
}

async function lstatOrNull(p: string) {
  try {
    return await fs.lstat(p);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT' || (err as NodeJS.ErrnoException).code === 'ENOTDIR')
      return null;
    throw err;
  }
}

/** Resolves a customer path inside `root` (an absolute directory), checking symlinks on disk. */
export async function resolveInRoot(root: string, input: unknown, field = 'path'): Promise<ResolvedPath> {
  const segments = pathSegments(input, field);
  const rootReal = await fs.realpath(root);
  const abs = path.join(rootReal, ...segments);
  // path.join after the checks above cannot leave the root; this guards the invariant anyway.
  if (!inside(rootReal, abs)) throw new PathRefused(field, `${field} is outside the account.`);
  const rel = `/${segments.join('/')}`;

  // The deepest existing ancestor (or the target) must really be inside the root.
  let probe = abs;
  let stat = await lstatOrNull(probe);
  const target = stat;
  while (!stat && probe !== rootReal) {
    probe = path.dirname(probe);
    stat = await lstatOrNull(probe);
  }
  let real: string;
  try {
    real = await fs.realpath(probe);
  } catch {
    throw new PathRefused(field, `${field} ${JSON.stringify(rel)} is refused: it goes through a broken link.`);
  }
  if (!inside(rootReal, real))
    throw new PathRefused(field, `${field} ${JSON.stringify(rel)} is refused: it leads outside the account.`);
  // An ancestor that is a link to a file (not a directory) cannot hold children.
  return { rel, abs, real: target ? real : null, stat: target };
}

/** The ancestors of a resolved path must be directories: used before creating the target. */
export async function requireParentDir(root: string, resolved: ResolvedPath, field = 'path'): Promise<string> {
  if (resolved.rel === '/') throw new PathRefused(field, `${field} "/" is the account root.`);
  const parentRel = path.posix.dirname(resolved.rel);
  const parent = await resolveInRoot(root, parentRel, field);
  if (!parent.stat)
    throw new PathRefused(
      field,
      `${field} ${JSON.stringify(resolved.rel)}: the directory ${JSON.stringify(parentRel)} does not exist.`,
    );
  const parentStat = await fs.stat(parent.real!);
  if (!parentStat.isDirectory())
    throw new PathRefused(
      field,
      `${field} ${JSON.stringify(resolved.rel)}: ${JSON.stringify(parentRel)} is not a directory.`,
    );
  return path.join(parent.real!, path.posix.basename(resolved.rel));
}
