import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type Customer, type TestApp } from '../helpers/app.ts';
import { gql } from '../helpers/graphql.ts';

/**
 * Input rules through @pothos/plugin-validation (src/schema/input-rules.ts): the plugin refuses
 * before the resolver runs, and the input-error stage states the refusal as the API always has.
 */
describe('input rules through the validation plugin', () => {
  let app: TestApp;
  let c: Customer;
  beforeAll(async () => {
    app = await startTestApp();
    c = await app.customer();
  });
  afterAll(() => app?.stop());

  const snapshot =
    'mutation ($name: String!, $d: String) { serverSnapshotCreate(id: "srv_missing", name: $name, description: $d) { id } }';

  it('every broken rule of the arguments is its own 400, in the order of the field arguments', async () => {
    const res = await gql(app, snapshot, { key: c.key, variables: { name: 'x'.repeat(65), d: 'y'.repeat(501) } });
    expect(res.status).toBe(400);
    expect(
      res.body.errors.map((e: { message: string; extensions: { field: string } }) => [e.message, e.extensions.field]),
    ).toEqual([
      ['description must be at most 500 characters.', 'description'],
      ['name must be 1 to 64 characters.', 'name'],
    ]);
  });

  it('a list bound is stated before the rules of its elements, as the declared order has it', async () => {
    const jobs = Array.from({ length: 101 }, () => ({ schedule: '@daily', command: 'x'.repeat(1001) }));
    const res = await app.call('PUT', '/v1/hosting/hst_missing/cron', { key: c.key, body: { jobs } });
    expect(res.status).toBe(400);
    expect(res.body.param).toBe('jobs');
    const one = await app.call('PUT', '/v1/hosting/hst_missing/cron', { key: c.key, body: { jobs: jobs.slice(0, 2) } });
    expect(one.body).toMatchObject({ statusCode: 400, param: 'jobs[0].command' });
  });

  it('a field the credential may not call answers 403 whatever its values; a callable one beside it 400', async () => {
    const reader = await app.customer({ scopes: ['servers:read'] });
    const res = await gql(app, snapshot, { key: reader.key, variables: { name: 'x'.repeat(65) } });
    expect(res.status).toBe(403);
    expect(res.body.errors).toEqual([
      expect.objectContaining({ message: 'This credential lacks the scope "servers:write".' }),
    ]);
    const list = await gql(app, '{ a: servers(first: 0) { pageInfo { hasNextPage } } }', { key: reader.key });
    expect(list.status).toBe(400);
    expect(list.body.errors[0]).toMatchObject({
      message: 'first must be an integer from 1 to 1000.',
      extensions: { field: 'first' },
    });
  });
});
