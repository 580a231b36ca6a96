import { describe, expect, it } from 'vitest';
import { getSchema } from '../src/schema/index.ts';
import { listOperations } from '../src/schema/operation.ts';
import { binaryRoutes } from '../src/http/rest/binary-routes.ts';
import { BINARY_ROUTES, LATER_OPERATIONS, SPEC_OPERATIONS } from './spec-operations.ts';

const bound = new Map(listOperations(getSchema()).map((op) => [`${op.method} ${op.path}`, op]));
const binary = new Map(binaryRoutes().map((r) => [`${r.method} ${r.path}`, r]));

describe('spec coverage: every operation of the spec is bound with its scope', () => {
  for (const spec of SPEC_OPERATIONS) {
    const route = `${spec.method} ${spec.path}`;
    const op = bound.get(route);
    const stream = binary.get(route);
    if (!op && BINARY_ROUTES.has(route) && stream) {
      it(`${route} requires ${spec.scope} (binary stream route)`, () => {
        expect(stream.scope).toBe(spec.scope);
        expect(stream.area).toBe(spec.area);
        expect(stream.description.length).toBeGreaterThan(10);
      });
    } else if (!op && BINARY_ROUTES.has(route)) {
      it.todo(`${route} (${spec.scope}) — binary stream route`);
    } else if (!op) {
      it.todo(`${route} (${spec.scope})`);
    } else {
      it(`${route} requires ${spec.scope}`, () => {
        expect(op.meta.scope).toBe(spec.scope);
        expect(op.meta.area).toBe(spec.area);
        expect(op.description.length).toBeGreaterThan(10);
      });
    }
  }

  for (const later of LATER_OPERATIONS) {
    it(`${later.method} ${later.path} (revision ${later.revision}) requires ${later.scope}`, () => {
      const op = bound.get(`${later.method} ${later.path}`);
      expect(op?.meta.scope).toBe(later.scope);
      expect(op?.meta.area).toBe(later.area);
    });
  }

  it('binds nothing the spec or a later revision does not list', () => {
    const listed = new Set([...SPEC_OPERATIONS, ...LATER_OPERATIONS].map((s) => `${s.method} ${s.path}`));
    expect([...bound.keys()].filter((r) => !listed.has(r))).toEqual([]);
    expect([...binary.keys()].filter((r) => !BINARY_ROUTES.has(r))).toEqual([]);
    expect([...binary.keys()].filter((r) => bound.has(r))).toEqual([]);
  });

  it('gives every operation a unique MCP tool name and GraphQL field', () => {
    const tools = [...bound.values()].map((op) => op.meta.tool);
    expect(new Set(tools).size).toBe(tools.length);
    for (const tool of tools) expect(tool).toMatch(/^[a-z]+(_[a-z0-9]+)+$/);
  });
});
