// `npm run print-schema`: writes the printed artifacts under schema/ from the one schema.
// test/printed-schema.test.ts fails when they are stale.
import { writeFileSync } from 'node:fs';
import { printedArtifacts } from '../src/printed-artifacts.ts';

for (const [file, text] of Object.entries(printedArtifacts())) {
  writeFileSync(new URL(`../${file}`, import.meta.url), text);
  console.log(`wrote ${file}`);
}
