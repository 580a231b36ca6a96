import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { getSchema } from '../../src/schema/index.ts';
import { listOperations } from '../../src/schema/operation.ts';
import { binaryRoutes } from '../../src/http/rest/binary-routes.ts';
import { IDEMPOTENCY_KEY_BUSY, IDEMPOTENCY_KEY_REUSED, knownRefusals } from '../../src/errors.ts';
import { DOMAIN_PENDING_PAYMENT } from '../../src/modules/domains/service.ts';
import { POOL_SERVER_HAS_NO_PLAN } from '../../src/modules/servers/actions.ts';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(() => app?.stop());

describe('GET /v1/openapi.json', () => {
  it('is public and identical to the printed schema/openapi.json', async () => {
    const res = await app.call('GET', '/v1/openapi.json');
    expect(res.status).toBe(200);
    expect(res.body).toEqual(JSON.parse(readFileSync(new URL('../../schema/openapi.json', import.meta.url), 'utf8')));
    expect(res.body.openapi).toBe('3.1.0');
  });

  it('describes every bound operation truthfully: path params, query params, bodies, scopes, errors', async () => {
    const doc = (await app.call('GET', '/v1/openapi.json')).body;
    const ops = listOperations(getSchema());
    expect(Object.values<object>(doc.paths).flatMap((p) => Object.keys(p)).length).toBe(
      ops.length + binaryRoutes().length,
    );
    for (const op of ops) {
      const entry = doc.paths[op.path.replace(/:(\w+)/g, '{$1}')]?.[op.method.toLowerCase()];
      expect(entry, `${op.method} ${op.path}`).toBeDefined();
      expect(entry.operationId).toBe(op.name);
      expect(entry.security).toEqual([{ bearer: [op.meta.scope] }]);
      expect(entry['x-scope']).toBe(op.meta.scope);
      for (const status of ['200', '400', '401', '403', '404', '429', '500'])
        expect(entry.responses[status], status).toBeDefined();
      const pathParams = (entry.parameters ?? [])
        .filter((p: { in: string }) => p.in === 'path')
        .map((p: { name: string }) => p.name);
      expect(pathParams.sort()).toEqual([...op.pathParams].sort());
      if (op.method === 'GET') {
        expect(
          entry.parameters.some((p: { name: string; in: string }) => p.name === 'If-None-Match' && p.in === 'header'),
        ).toBe(true);
        expect(entry.responses['200'].headers.ETag).toBeDefined();
        expect(entry.responses['304'].headers.ETag).toBeDefined();
      } else expect(entry.responses['304']).toBeUndefined();
      if (op.idempotencyKey)
        expect(
          entry.parameters.some((p: { name: string; in: string }) => p.name === 'Idempotency-Key' && p.in === 'header'),
        ).toBe(true);
      else expect((entry.parameters ?? []).some((p: { name: string }) => p.name === 'Idempotency-Key')).toBe(false);
      if (op.method === 'GET') expect(entry.requestBody).toBeUndefined();
    }
    // Spot checks: query parameters on a list, a JSON body on a create.
    const list = doc.paths['/servers'].get;
    expect(list.parameters.map((p: { name: string; in: string }) => [p.name, p.in])).toEqual([
      ['cursor', 'query'],
      ['limit', 'query'],
      ['If-None-Match', 'header'],
    ]);
    const snap = doc.paths['/servers/{id}/snapshots'].post;
    expect(snap.requestBody.content['application/json'].schema).toMatchObject({
      type: 'object',
      required: ['name'],
      additionalProperties: false,
    });
    expect(snap.responses['200'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/Snapshot' });
    expect(doc.components.schemas.Error.required).toEqual(['statusCode', 'message', 'error', 'code']);
    expect(doc.components.schemas.Account.properties.email_verified).toMatchObject({
      type: 'boolean',
      examples: [true],
    });
  });

  it('describes the binary stream routes: multipart upload body, binary responses, scope', async () => {
    const doc = (await app.call('GET', '/v1/openapi.json')).body;
    for (const route of binaryRoutes()) {
      const entry = doc.paths[route.path.replace(/:(\w+)/g, '{$1}')]?.[route.method.toLowerCase()];
      expect(entry, `${route.method} ${route.path}`).toMatchObject({
        operationId: route.operationId,
        security: [{ bearer: [route.scope] }],
        'x-scope': route.scope,
      });
      for (const status of ['200', '400', '401', '403', '404', '429', '500'])
        expect(entry.responses[status], status).toBeDefined();
    }
    const up = doc.paths['/hosting/{id}/files/upload'].post;
    expect(up.requestBody.content['multipart/form-data'].schema).toMatchObject({
      required: ['file'],
      properties: { file: { type: 'string', format: 'binary' } },
    });
    expect(up.parameters.map((p: { name: string; in: string }) => [p.name, p.in])).toEqual([
      ['id', 'path'],
      ['path', 'query'],
    ]);
    expect(up.responses['413']).toBeDefined();
    const down = doc.paths['/hosting/{id}/files/download'].get;
    // A download is sent as the type its file's name implies: each is declared, application/octet-stream for the rest.
    for (const type of ['application/octet-stream', 'text/html', 'image/png'])
      expect(down.responses['200'].content[type].schema, type).toEqual({ type: 'string', format: 'binary' });
    expect(down.responses['200'].headers['Cache-Control']).toBeDefined();
    expect(down.responses['200'].headers['Content-Disposition']).toBeDefined();
    expect(
      doc.paths['/hosting/{id}/backups/{bid}/download'].get.responses['200'].content['application/gzip'],
    ).toBeDefined();
  });

  it('every named refusal is declared by the operations that can meet it: none is left unattached, each status with its description', async () => {
    const doc = (await app.call('GET', '/v1/openapi.json')).body;
    const declared = [
      ...listOperations(getSchema()).flatMap((op) => op.meta.refuses ?? []),
      ...binaryRoutes().flatMap((r) => r.refuses ?? []),
      IDEMPOTENCY_KEY_BUSY,
      IDEMPOTENCY_KEY_REUSED,
    ];
    expect(
      knownRefusals()
        .filter((r) => !declared.includes(r))
        .map((r) => r.description),
    ).toEqual([]);
    const patch = doc.paths['/domains/{id}'].patch.responses['409'];
    expect(patch.description).toContain(DOMAIN_PENDING_PAYMENT.description);
    expect(doc.paths['/servers/{id}/plan-options'].get.responses['409'].description).toContain(
      POOL_SERVER_HAS_NO_PLAN.description,
    );
    expect(doc.paths['/servers/{id}'].get.responses['409']).toBeUndefined();
  });

  it('every $ref points at a component that exists', async () => {
    const doc = (await app.call('GET', '/v1/openapi.json')).body;
    const refs = [...JSON.stringify(doc).matchAll(/"\$ref":"#\/components\/schemas\/(\w+)"/g)].map((m) => m[1]);
    for (const ref of new Set(refs)) expect(doc.components.schemas[ref], ref).toBeDefined();
  });
});
