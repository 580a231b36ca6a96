import { readFileSync } from 'node:fs';
import { validate } from 'graphql';
import { describe, expect, it } from 'vitest';
import { printedArtifacts } from '../src/printed-artifacts.ts';
import { getSchema } from '../src/schema/index.ts';
import { restProjections } from '../src/schema/rest-projection.ts';

const artifacts = await printedArtifacts();

describe('printed schema artifacts', () => {
  for (const [file, text] of Object.entries(artifacts)) {
    it(`${file} is up to date (run \`npm run print-schema\`)`, () => {
      expect(readFileSync(new URL(`../${file}`, import.meta.url), 'utf8')).toBe(text);
    });
  }

  it('every REST projection is a valid document of the GraphQL schema, one per operation', async () => {
    const schema = getSchema();
    const projections = [...(await restProjections(schema)).values()];
    expect(projections.length).toBeGreaterThan(100);
    for (const { operation, document } of projections) expect(validate(schema, document), operation.name).toEqual([]);
  });

  it('GraphQL is camelCase throughout: no field or argument keeps a snake_case name', () => {
    const sdl = artifacts['schema/schema.graphql'];
    expect(sdl.match(/^\s+[a-z][a-z0-9]*_[a-z0-9_]+[(:]/gm) ?? []).toEqual([]);
  });
});
