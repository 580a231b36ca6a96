// Commit subjects of at most 72 characters (the story goes in the body), for every commit
// since SINCE, the last commit made before the rule. Part of `npm run lint`.
import { execFileSync } from 'node:child_process';

const SINCE = '7cf446df9883adb4dab0257a28bef81dd3073183';
const MAX = 72;

const git = (...args) => execFileSync('git', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
let range = `${SINCE}..HEAD`;
try {
  git('cat-file', '-e', `${SINCE}^{commit}`);
} catch {
  if (git('rev-parse', '--is-shallow-repository') !== 'true') {
    console.error(`commit subjects: ${SINCE.slice(0, 12)} is not in this history: nothing to check from`);
    process.exit(1);
  }
  // A shallow clone holds only recent commits, all made after the rule.
  console.log(`commit subjects: a shallow clone; checking the ${git('rev-list', '--count', 'HEAD')} commits it holds`);
  range = 'HEAD';
}
const long = git('log', '--format=%h %s', range)
  .split('\n')
  .filter((line) => line && line.length - line.indexOf(' ') - 1 > MAX);
for (const line of long) console.error(`commit subject over ${MAX} characters: ${line}`);
if (long.length) process.exit(1);
