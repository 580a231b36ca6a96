import { createConfig, lintFromString } from '@redocly/openapi-core';
import { GraphQLString } from 'graphql';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { exampleOf } from '../../src/schema/examples.ts';

// The printed document (schema/openapi.json, the same as /v1/openapi.json: printed-schema.test.ts)
// under Redocly's `recommended` rules, offline: examples are checked against their schemas there.
// Then the rules `recommended` leaves off that make a document teach: descriptions of every
// operation, parameter and property, and a real example on every scalar property (issue #20).

const source = readFileSync(new URL('../../schema/openapi.json', import.meta.url), 'utf8');
const doc = JSON.parse(source);

async function lint(rules: Record<string, 'error'> = {}) {
  const config = await createConfig({ extends: ['recommended'], rules });
  const problems = await lintFromString({ source, absoluteRef: 'openapi.json', config });
  return problems.map((p) => `${p.severity} ${p.ruleId}: ${p.message} ${p.location[0]?.pointer ?? ''}`);
}

describe('the OpenAPI document under Redocly', () => {
  it('recommended rules: 0 errors, 0 warnings', async () => {
    expect(await lint()).toEqual([]);
  });

  it('every operation and parameter described, every scalar property with an example', async () => {
    expect(
      await lint({
        'operation-description': 'error',
        'parameter-description': 'error',
        'scalar-property-missing-example': 'error',
      }),
    ).toEqual([]);
  });

  it('the lint can fail: an example that breaks its schema is reported', async () => {
    const broken = structuredClone(doc);
    broken.components.schemas.Error.properties.statusCode.examples = ['not a number'];
    const config = await createConfig({ extends: ['recommended'] });
    const problems = await lintFromString({ source: JSON.stringify(broken), absoluteRef: 'openapi.json', config });
    expect(problems.map((p) => p.ruleId)).toContain('no-invalid-schema-examples');
  });

  it('each operation has a summary and a description of its own, with request and response examples', () => {
    type Operation = {
      summary: string;
      description: string;
      responses: Record<string, { content: Record<string, { schema: { format?: string }; example?: unknown }> }>;
      requestBody?: { content: Record<string, { example?: unknown }> };
    };
    for (const [path, item] of Object.entries<Record<string, Operation>>(doc.paths)) {
      for (const [method, op] of Object.entries(item)) {
        const where = `${method.toUpperCase()} ${path}`;
        expect(op.summary, where).toMatch(/^[A-Z][^.]{3,40}$/);
        expect(op.description.split('\n\nScope:')[0].length, where).toBeGreaterThan(20);
        const json = op.responses['200'].content['application/json'];
        // A download may send a JSON file as it is (binary): the API's own JSON answers have examples.
        if (json && json.schema.format !== 'binary') expect(json.example, where).toBeDefined();
        const body = op.requestBody?.content['application/json'];
        if (body) expect(body.example, where).toBeDefined();
      }
    }
  });

  it('every property of every schema is described', () => {
    const missing = Object.entries<{ properties?: Record<string, { description?: string }> }>(
      doc.components.schemas,
    ).flatMap(([name, schema]) =>
      Object.entries(schema.properties ?? {})
        .filter(([, p]) => !p.description)
        .map(([prop]) => `${name}.${prop}`),
    );
    expect(missing).toEqual([]);
  });

  it('no example is a placeholder', () => {
    // Every string in the document that is an example or sits inside one (request, response, property examples);
    // an id whose kind the example could not tell has the generic prefix `id_`.
    const placeholders: string[] = [];
    const walk = (value: unknown, path: string, inExample: boolean): void => {
      if (typeof value === 'string') {
        if (inExample && /^(text|string|foo|bar|example)$|^id_/i.test(value)) placeholders.push(`${path}: ${value}`);
      } else if (value && typeof value === 'object') {
        for (const [key, v] of Object.entries(value))
          walk(v, `${path}/${key}`, inExample || key === 'example' || key === 'examples');
      }
    };
    walk(doc, '#', false);
    expect(placeholders).toEqual([]);
  });

  it('a string field with no example to give fails the printing instead of showing a placeholder', () => {
    expect(() => exampleOf(GraphQLString, 'flavour', { parent: 'Widget' })).toThrow(
      /No example for the string Widget\.flavour/,
    );
  });
});
