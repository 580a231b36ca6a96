import path from 'node:path';
import { PathRefused } from './sandbox.ts';
import { HostingRefusal, type HostingDriver, type SiteQuota } from './types.ts';

/**
 * The shell behind a browser-SSH session of the simulated datacenter: a handful of commands a
 * person tries first (ls, cd, cat, mkdir, rm …) run on the account's site through the driver's
 * file methods, so every path goes through the same sandbox as the file manager (sandbox.ts):
 * nothing outside the account's home is reachable, `..` stops at "/", symlinks out are refused.
 * It keeps no state of its own: the terminal page sends its working directory with each line.
 */

type Files = Pick<
  HostingDriver,
  'listDir' | 'readText' | 'writeText' | 'mkdir' | 'remove' | 'requireDirectory' | 'databaseSignIn'
>;

interface ShellContext {
  files: Files;
  hostingId: string;
  /** The account's system user, what `whoami` says. */
  user: string;
  quota: SiteQuota;
  now: Date;
}

export interface ShellResult {
  output: string;
  /** The working directory after the line (`cd` changes it). */
  cwd: string;
  /** `exit`: the page ends the session. */
  exit?: true;
}

/** The longest line and the most bytes `cat` prints: a terminal, not a download. */
export const SHELL_LINE_MAX = 4096;
const CAT_MAX_BYTES = 256 * 1024;
const LS_MAX = 500;

const HELP = `Commands of this simulated shell:
  ls [-l] [dir]      list a directory
  cd [dir]           change directory (/ is your home)
  pwd                print the working directory
  cat <file>         print a text file
  mkdir <dir>        make a directory
  touch <file>       create an empty file (an existing one is left as it is)
  rm [-r] <path>     remove a file, or a directory with -r
  echo <text>        print text
  mysql -u <user> -p<password> [database]
                     sign in to one of your MySQL databases (checks the sign-in only)
  whoami, date, clear, help, exit`;

/** Splits a line into words: spaces separate, single or double quotes keep a word together. */
function words(line: string): string[] {
  const out: string[] = [];
  const re = /"([^"]*)"|'([^']*)'|(\S+)/g;
  for (let m = re.exec(line); m; m = re.exec(line)) out.push(m[1] ?? m[2] ?? m[3]);
  return out;
}

/** A path typed at the prompt, made absolute inside the account ("/" is its home; `..` stops there). */
const absolute = (cwd: string, p: string) => path.posix.resolve(cwd, p);

/** "0644" → "rw-r--r--", as ls -l prints a mode. */
function modeString(octal: string): string {
  return [...octal.slice(-3)]
    .map((digit) => {
      const n = Number(digit);
      return `${n & 4 ? 'r' : '-'}${n & 2 ? 'w' : '-'}${n & 1 ? 'x' : '-'}`;
    })
    .join('');
}

/** One line of output per entry; `-l` adds type, size and modification time. */
async function ls(ctx: ShellContext, cwd: string, args: string[]): Promise<string> {
  const long = args.includes('-l');
  const target = args.find((a) => !a.startsWith('-')) ?? '.';
  const listing = await ctx.files.listDir(ctx.hostingId, absolute(cwd, target), LS_MAX);
  const lines = listing.entries.map((e) => {
    const name = e.type === 'directory' ? `${e.name}/` : e.name;
    if (!long) return name;
    const when = e.modifiedAt.toISOString().slice(0, 16).replace('T', ' ');
    return `${e.type === 'directory' ? 'd' : '-'}${modeString(e.permissions)}  ${String(e.sizeBytes).padStart(10)}  ${when}  ${name}`;
  });
  if (listing.truncated) lines.push(`… only the first ${LS_MAX} entries`);
  return lines.join('\n');
}

/**
 * `mysql -u USER -pPASSWORD [DATABASE]` (or --user=, --password=): the simulated MySQL checks the
 * sign-in as MySQL would and says so; it runs no statements.
 */
async function mysql(ctx: ShellContext, args: string[]): Promise<string> {
  let user = ctx.user;
  let password: string | undefined;
  let database: string | undefined;
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === '-u' || a === '--user') user = args[++i] ?? '';
    else if (a.startsWith('--user=')) user = a.slice('--user='.length);
    else if (a.startsWith('-u')) user = a.slice(2);
    else if (a.startsWith('--password=')) password = a.slice('--password='.length);
    else if (a === '-p' || a === '--password') password = '';
    else if (a.startsWith('-p')) password = a.slice(2);
    else if (a === '-h' || a === '--host') i++;
    else if (!a.startsWith('-')) database = a;
  }
  if (password === '')
    return 'mysql: this simulated shell cannot ask for the password: give it as -pPASSWORD (no space).';
  const using = password === undefined ? 'NO' : 'YES';
  if (!(await ctx.files.databaseSignIn(ctx.hostingId, user, password ?? '')))
    return `ERROR 1045 (28000): Access denied for user '${user}'@'localhost' (using password: ${using})`;
  if (database !== undefined && database !== user)
    return `ERROR 1044 (42000): Access denied for user '${user}'@'localhost' to database '${database}'`;
  return `Welcome to the MySQL monitor (simulated MySQL 8.0).\nSigned in as ${user}@localhost${database ? ` to ${database}` : ''}. This shell checks the sign-in only: bye.`;
}

async function run(ctx: ShellContext, cwd: string, [command, ...args]: string[]): Promise<ShellResult> {
  const say = (output: string): ShellResult => ({ output, cwd });
  const operand = () => {
    const p = args.find((a) => !a.startsWith('-'));
    if (!p) throw new HostingRefusal('invalid', `${command}: missing operand`);
    return absolute(cwd, p);
  };
  switch (command) {
    case 'help':
      return say(HELP);
    case 'pwd':
      return say(cwd);
    case 'whoami':
      return say(ctx.user);
    case 'date':
      return say(ctx.now.toUTCString());
    case 'echo':
      return say(args.join(' '));
    case 'ls':
      return say(await ls(ctx, cwd, args));
    case 'cd':
      return { output: '', cwd: await ctx.files.requireDirectory(ctx.hostingId, absolute(cwd, args[0] ?? '/')) };
    case 'cat': {
      const file = await ctx.files.readText(ctx.hostingId, operand(), CAT_MAX_BYTES);
      return say(file.content.replace(/\n$/, ''));
    }
    case 'mkdir':
      await ctx.files.mkdir(ctx.hostingId, operand(), ctx.quota);
      return say('');
    case 'touch': {
      const target = operand();
      const existing = await ctx.files.readText(ctx.hostingId, target, 0).catch((err: unknown) => err);
      // Only a missing file is created: touching one that exists must not empty it.
      if (existing instanceof HostingRefusal && existing.reason === 'not_found')
        await ctx.files.writeText(ctx.hostingId, target, '', ctx.quota);
      else if (existing instanceof PathRefused) throw existing;
      return say('');
    }
    case 'rm': {
      const recursive = args.includes('-r') || args.includes('-rf') || args.includes('-fr');
      await ctx.files.remove(ctx.hostingId, operand(), recursive);
      return say('');
    }
    case 'mysql':
      return say(await mysql(ctx, args));
    case 'clear':
      return say('');
    case 'exit':
      return { output: 'logout', cwd, exit: true };
    default:
      return say(`${command}: command not found (type help)`);
  }
}

/**
 * Runs one line in `cwd` (a directory of the account, checked first). A refusal of the sandbox
 * or the driver is the command's error output, as a shell prints it; anything else is thrown.
 */
export async function runShellLine(ctx: ShellContext, cwdInput: string, line: string): Promise<ShellResult> {
  let cwd: string;
  try {
    cwd = await ctx.files.requireDirectory(ctx.hostingId, cwdInput || '/');
  } catch (err) {
    if (!(err instanceof HostingRefusal || err instanceof PathRefused)) throw err;
    cwd = '/';
  }
  const argv = words(line.slice(0, SHELL_LINE_MAX));
  if (argv.length === 0) return { output: '', cwd };
  try {
    return await run(ctx, cwd, argv);
  } catch (err) {
    if (err instanceof HostingRefusal || err instanceof PathRefused)
      return { output: `${argv[0]}: ${err.message}`, cwd };
    throw err;
  }
}
