// `npm run print-schema`: writes the printed artifacts (schema/*, the console's schema types) from the one schema, then the
// typed client example's types generated from schema/openapi.json.
// test/printed-schema.test.ts and test/readme/typed-client.test.ts fail when they are stale.
import { writeFileSync } from 'node:fs';
import { printedArtifacts } from '../src/printed-artifacts.ts';
import { TYPED_CLIENT_TYPES, typedClientTypes } from './typed-client-types.ts';

const artifacts = await printedArtifacts();
for (const [file, text] of Object.entries(artifacts)) {
  writeFileSync(new URL(`../${file}`, import.meta.url), text);
  console.log(`wrote ${file}`);
}
writeFileSync(
  new URL(`../${TYPED_CLIENT_TYPES}`, import.meta.url),
  await typedClientTypes(artifacts['schema/openapi.json']),
);
console.log(`wrote ${TYPED_CLIENT_TYPES}`);
