// Commit subjects of at most 72 characters (the story goes in the body), for every commit
// since SINCE, the last commit made before the rule. Part of `npm run lint`.
import { execFileSync } from 'node:child_process';

const SINCE = '7cf446df9883adb4dab0257a28bef81dd3073183';
const MAX = 72;

const git = (...args) => execFileSync('git', args, { encoding: 'utf8' }).trim();
try {
  git('cat-file', '-e', `${SINCE}^{commit}`);
} catch {
  console.error(
    `commit subjects: ${SINCE.slice(0, 12)} is not in this clone's history (a shallow clone?): fetch the full history to check`,
  );
  process.exit(1);
}
const long = git('log', '--format=%h %s', `${SINCE}..HEAD`)
  .split('\n')
  .filter((line) => line && line.length - line.indexOf(' ') - 1 > MAX);
for (const line of long) console.error(`commit subject over ${MAX} characters: ${line}`);
if (long.length) process.exit(1);
