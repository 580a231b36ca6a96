// `npm run bench`: the performance budgets of the issue, measured as ratios against baselines
// run in the same process, printed as one table and written to bench/results.json.
// `npm run bench -- --tiny` runs every scenario once at a tiny size (the test suite does).
import fs from 'node:fs';
import { coldStartAndMemory } from './cold-start.ts';
import { livePage } from './live-page.ts';
import { subscribers, webhookPipeline } from './event-delivery.ts';
import { overload } from './overload.ts';
import { readPath } from './read-path.ts';
import { FULL, nestedQuery, restAndGraphql, TINY, type Figure } from './scenarios.ts';

const sizes = process.argv.includes('--tiny') ? TINY : FULL;
const only = process.argv.find((a) => /^\d+$/.test(a));
const started = Date.now();
const figures: Figure[] = [];
const scenarios: [string, () => Promise<Figure[]>][] = [
  ['1', async () => (await restAndGraphql(sizes)).figures],
  ['3', () => nestedQuery(sizes)],
  ['4', () => webhookPipeline(sizes)],
  ['5', () => subscribers(sizes)],
  ['6', () => coldStartAndMemory(sizes)],
  ['8', async () => (await readPath(sizes)).figures],
  ['9', () => overload(sizes)],
  ['10', () => livePage(sizes)],
];
for (const [id, run] of scenarios) {
  if (only && only !== id && !(only === '2' && id === '1') && !(only === '7' && id === '1')) continue;
  process.stderr.write(`scenario ${id}…\n`);
  figures.push(...(await run()));
}

const fmt = (v: number) => (Number.isInteger(v) ? String(v) : v.toFixed(v < 10 ? 2 : 1));
const rows = figures.map((f) => [
  f.scenario,
  f.metric,
  `${fmt(f.value)} ${f.unit}`,
  f.budget ?? '',
  f.pass === undefined ? '' : f.pass ? 'pass' : 'MISS',
]);
const widths = [0, 1, 2, 3, 4].map((i) =>
  Math.max(...[['scenario', 'metric', 'value', 'budget', ''], ...rows].map((r) => r[i].length)),
);
const line = (r: string[]) => r.map((c, i) => c.padEnd(widths[i])).join('  ');
console.log(line(['scenario', 'metric', 'value', 'budget', '']));
console.log(widths.map((w) => '-'.repeat(w)).join('  '));
for (const r of rows) console.log(line(r));
const database = process.env.BENCH_DATABASE_URL ? 'postgresql' : 'pglite';
console.log(
  `\n${database}, ${sizes === TINY ? 'tiny' : 'full'} sizes, ${((Date.now() - started) / 1000).toFixed(0)} s`,
);
fs.writeFileSync(
  new URL('./results.json', import.meta.url),
  `${JSON.stringify({ at: new Date().toISOString(), database, sizes, figures }, null, 2)}\n`,
);
process.exit(0);
