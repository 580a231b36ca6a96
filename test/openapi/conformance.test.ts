import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toEnvelope } from '../../src/events/envelope.ts';
import { binaryRoutes } from '../../src/http/rest/binary-routes.ts';
import { HOSTING_PROVISIONING } from '../../src/modules/hosting/service.ts';
import { argumentsExample } from '../../src/schema/examples.ts';
import { getSchema } from '../../src/schema/index.ts';
import { listOperations, type Operation } from '../../src/schema/operation.ts';
import { restView } from '../../src/schema/rest-view.ts';
import { startTestApp, type CallOptions, type Customer, type Json, type TestApp } from '../helpers/app.ts';
import { proveDomain } from '../helpers/domains.ts';
import { argumentsWithRealIds, collectIds } from '../helpers/example-ids.ts';
import { activeHosting, domainName } from '../helpers/hosting.ts';
import { openApiContract, templateOf, type Answer } from '../helpers/openapi-contract.ts';
import { runningServer } from '../helpers/servers.ts';

// Every /v1 operation driven over the real HTTP server, and each answer checked against the
// served OpenAPI document with Ajv (helpers/openapi-contract.ts): its status declared for the
// operation, its content type declared, its body valid against the declared schema, and every
// header outside HTTP's own declared. First with example arguments in a seeded account, then
// with deliberate refusals (401, 403, 404, 400, 413, 415, 409 of each state rule, 422, 429, 304).

const operations = listOperations(restView(getSchema()));
let app: TestApp;
let c: Customer;
let contract: ReturnType<typeof openApiContract>;
/** Every mismatch seen, reported at the end of each test. */
let problems: string[] = [];

beforeAll(async () => {
  // Hundreds of calls from one key: the per-credential limit is lifted (429 is driven through a rate-limit class).
  app = await startTestApp({ requestsPerMinute: 1e9, webhookAllowPrivate: true } as never);
  c = await app.customer({ walletBalanceUsdCents: 5_000_000 });
  await runningServer(app, c);
  await activeHosting(app, c);
  await app.admin('POST', `/admin/accounts/${c.accountId}/domains`, { domain: 'teach-example.com', periodYears: 1 });
  await app.admin('POST', `/admin/accounts/${c.accountId}/invoices`, {
    items: [{ description: 'Support hours', amountUsdCents: 4200 }],
  });
  await proveDomain(app, c.accountId, 'example.com');
  contract = openApiContract((await app.call('GET', '/v1/openapi.json')).body);
}, 60_000);
afterAll(() => app?.stop());

/** Sends a request to an operation's route and checks the answer against the document. */
async function send(
  op: { name: string; method: string; path: string },
  url: string,
  opts: CallOptions = {},
): Promise<Answer & { body: Json }> {
  const res = await app.call(op.method, `/v1${url}`, opts);
  problems.push(...contract.check(op.method, templateOf(op.path), res));
  return res;
}

/** The URL and JSON body of a call with these arguments, each where the operation reads it. */
function request(op: Operation, args: Record<string, unknown>): { url: string; body?: Record<string, unknown> } {
  let path = op.path;
  const query = new URLSearchParams();
  const body: Record<string, unknown> = {};
  for (const arg of op.field.args) {
    const value = args[arg.name];
    if (value === undefined) continue;
    const where = op.argLocation(arg);
    if (where === 'path') path = path.replace(`:${arg.name}`, encodeURIComponent(String(value)));
    else if (where === 'query') for (const v of [value].flat()) query.append(arg.name, String(v));
    else body[arg.name] = value;
  }
  const qs = query.toString();
  return { url: `${path}${qs ? `?${qs}` : ''}`, ...(Object.keys(body).length ? { body } : {}) };
}

/** Lists first (they find the ids), then other reads, then changes, then what destroys. */
function order(op: Operation): number {
  if (op.hints.readOnly) return op.pathParams.length ? 1 : 0;
  return op.hints.destructive ? 3 : 2;
}

/** The example arguments of an operation, each example id replaced by a real one of the same kind. */
const argumentsFor = (op: Operation, ids: Map<string, string>) => argumentsWithRealIds(op, ids, ['cursor']);

const report = () => {
  const found = problems;
  problems = [];
  expect(found, found.join('\n')).toEqual([]);
};

describe('every answer of /v1 is declared by the OpenAPI document', () => {
  it('every operation with its example arguments in a seeded account; conditional reads (304) and Idempotency-Key replays (Idempotent-Replayed, 422)', async () => {
    const ids = new Map<string, string>();
    const ok: string[] = [];
    let notModified = 0;
    // Twice over what does not destroy (the second pass finds the ids the first created), then what destroys.
    const sorted = [...operations].sort((a, b) => order(a) - order(b));
    const kept = sorted.filter((op) => order(op) < 3);
    for (const op of [...kept, ...kept, ...sorted.filter((o) => order(o) === 3)]) {
      const { url, body } = request(op, argumentsFor(op, ids));
      const res = await send(op, url, { key: c.key, body });
      if (res.status === 200) {
        if (!ok.includes(op.name)) ok.push(op.name);
        collectIds(res.body, ids);
        const etag = res.headers.get('etag');
        // A read whose body moves with the clock (stats) answers 200 again: both are checked.
        if (
          op.method === 'GET' &&
          etag &&
          (await send(op, url, { key: c.key, headers: { 'If-None-Match': etag } })).status === 304
        )
          notModified++;
      }
    }
    // The seeded account answers most operations with 200; the rest refuse example arguments (declared refusals all the same).
    expect(ok.length).toBeGreaterThanOrEqual(75);
    expect(notModified).toBeGreaterThanOrEqual(25);

    const ticket = operations.find((o) => o.name === 'ticketCreate')!;
    const key = { 'Idempotency-Key': 'contract-1' };
    const first = await send(ticket, '/tickets', {
      key: c.key,
      headers: key,
      body: { subject: 'Hello', message: 'First' },
    });
    const again = await send(ticket, '/tickets', {
      key: c.key,
      headers: key,
      body: { subject: 'Hello', message: 'First' },
    });
    expect([first.status, again.status, again.headers.get('idempotent-replayed')]).toEqual([200, 200, 'true']);
    expect(
      (await send(ticket, '/tickets', { key: c.key, headers: key, body: { subject: 'Hello', message: 'Other' } }))
        .status,
    ).toBe(422);
    report();
  }, 180_000);

  it('refusals on every operation: 401 without a credential, 403 without the scope, 400 for an unknown parameter, 404 for a missing id, 415 for a body that is not JSON, 413 over the body limit', async () => {
    const other = await app.admin('POST', `/admin/accounts/${c.accountId}/api-keys`, { scopes: ['tickets:read'] });
    const big = `{"x":"${'a'.repeat(1_100_000)}"}`;
    for (const op of operations) {
      const { url, body } = request(op, argumentsExample(op.field, op.path));
      expect((await send(op, url, { body })).status, op.name).toBe(401);
      if (op.meta.scope !== 'tickets:read')
        expect((await send(op, url, { key: other.body.key, body })).status, op.name).toBe(403);
      expect(
        (await send(op, `${url}${url.includes('?') ? '&' : '?'}bogus=1`, { key: c.key, body })).status,
        op.name,
      ).toBe(400);
      // An operation for the console's password session refuses any key first (its declared 403).
      if (op.pathParams.length)
        expect(op.meta.caller ? [403] : [400, 404], op.name).toContain(
          (await send(op, url, { key: c.key, body })).status,
        );
      if (op.method === 'GET') continue;
      expect(
        (
          await send(op, url, {
            key: c.key,
            raw: 'subject=x',
            headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
          })
        ).status,
        op.name,
      ).toBe(415);
      expect(
        (await send(op, url, { key: c.key, raw: big, headers: { 'Content-Type': 'application/json' } })).status,
        op.name,
      ).toBe(413);
    }
    report();
  }, 180_000);

  it('the state rules answer the 409s they declare: a hosting account still provisioning (on exactly the operations that declare it), a server still provisioning, a pool server, a pool shrunk below use', async () => {
    const ids = new Map<string, string>();
    const order = await app.admin('POST', `/admin/accounts/${c.accountId}/hosting`, { domain: domainName('prov') });
    expect(order.body.status).toBe('provisioning');
    const provisioning = new Set<string>();
    for (const op of operations.filter((o) => o.path.startsWith('/hosting/:id'))) {
      const { url, body } = request(op, { ...argumentsFor(op, ids), id: order.body.id });
      const res = await send(op, url, { key: c.key, body });
      if (res.status === 409 && res.body.message.includes('provisioning')) provisioning.add(op.name);
    }
    const declaring = operations.filter((o) => o.meta.refuses?.includes(HOSTING_PROVISIONING));
    expect([...provisioning].sort()).toEqual(declaring.map((o) => o.name).sort());

    const server = await app.admin('POST', `/admin/accounts/${c.accountId}/servers`, {
      productId: 'std-2c-4g-50',
      label: 'prov',
      os: 'linux',
      osTemplate: 'ubuntu-24.04',
    });
    for (const name of [
      'serverPower',
      'serverReinstall',
      'serverSnapshotCreate',
      'serverPasswordReset',
      'serverChangePlan',
      'serverAddonAttach',
    ]) {
      const op = operations.find((o) => o.name === name)!;
      // The example's SSH key ids name no key of this account (a 404): the state rule is the point here.
      const { sshKeyIds: _keys, ...args } = argumentsExample(op.field, op.path);
      const { url, body } = request(op, { ...args, id: server.body.id });
      expect((await send(op, url, { key: c.key, body })).status, name).toBe(409);
    }

    const pools = (name: string) => operations.find((o) => o.name === name)!;
    const pool = await send(pools('poolCreate'), '/pools', {
      key: c.key,
      body: argumentsExample(pools('poolCreate').field, '/pools'),
    });
    expect(pool.status, pool.text).toBe(200);
    const member = await send(pools('poolServerCreate'), `/pools/${pool.body.id}/servers`, {
      key: c.key,
      body: {
        ...argumentsExample(pools('poolServerCreate').field, '/pools/:id/servers'),
        id: undefined,
        productId: 'std-4c-8g-50',
      },
    });
    expect(member.status, member.text).toBe(200);
    const memberId = member.body.id ?? member.body.server?.id;
    expect((await send(pools('serverPlanOptions'), `/servers/${memberId}/plan-options`, { key: c.key })).status).toBe(
      409,
    );
    // The pool's smallest shape (its bounds), below the 4 vCPU its server uses.
    const tiny = { vcpu: 2, ram2gb: 1, disk100: 1, ip16: 1 };
    expect(
      (await send(pools('poolResizeQuote'), `/pools/${pool.body.id}/resize-quote`, { key: c.key, body: tiny })).status,
    ).toBe(409);
    expect((await send(pools('poolResize'), `/pools/${pool.body.id}`, { key: c.key, body: tiny })).status).toBe(409);
    report();
  }, 120_000);

  it('a rate-limit class answers 429 with Retry-After, declared', async () => {
    const op = operations.find((o) => o.meta.rateLimit === 'poolIpApply')!;
    const statuses: number[] = [];
    for (let i = 0; i < 8; i++) {
      const { url, body } = request(op, argumentsExample(op.field, op.path));
      statuses.push((await send(op, url, { key: c.key, body })).status);
    }
    expect(statuses).toContain(429);
    report();
  });

  it('the binary streams: an upload (JSON), a download in its file type, a backup download; 415 and 413 on the upload', async () => {
    const hosting = (await app.call('GET', '/v1/hosting', { key: c.key })).body.data.find(
      (h: { status: string }) => h.status === 'active',
    ).id;
    const route = (id: string) => binaryRoutes().find((r) => r.operationId === id)!;
    const upload = route('hostingFileUpload');
    const sendRoute = async (r: ReturnType<typeof route>, url: string, init: RequestInit = {}) => {
      const res = await fetch(`${app.url}/v1${url}`, {
        ...init,
        method: r.method,
        headers: { Authorization: `Bearer ${c.key}`, ...(init.headers as object) },
      });
      const answer = { status: res.status, headers: res.headers, text: await res.text() };
      problems.push(...contract.check(r.method, templateOf(r.path), answer));
      return answer;
    };
    const form = new FormData();
    form.append('file', new Blob(['<h1>hi</h1>'], { type: 'text/html' }), 'page.html');
    expect((await sendRoute(upload, `/hosting/${hosting}/files/upload?path=/public_html`, { body: form })).status).toBe(
      200,
    );
    expect(
      (
        await sendRoute(upload, `/hosting/${hosting}/files/upload?path=/public_html`, {
          body: 'x',
          headers: { 'Content-Type': 'text/plain' },
        })
      ).status,
    ).toBe(415);
    const down = await sendRoute(
      route('hostingFileDownload'),
      `/hosting/${hosting}/files/download?path=/public_html/page.html`,
    );
    expect([down.status, down.headers.get('content-type')]).toEqual([200, 'text/html; charset=utf-8']);
    expect(
      (await sendRoute(route('hostingFileDownload'), `/hosting/${hosting}/files/download?path=/nowhere`)).status,
    ).toBe(404);
    const backup = await app.call('POST', `/v1/hosting/${hosting}/backups`, { key: c.key });
    expect(
      (await sendRoute(route('hostingBackupDownload'), `/hosting/${hosting}/backups/${backup.body.id}/download`))
        .status,
    ).toBe(200);
    report();
  });

  it('a database outage answers 503 with Retry-After, declared', async () => {
    // The connection-failure trick of test/spine/idempotency-recovery.test.ts: a trigger fails the insert with SQLSTATE 08006.
    const sql = (text: string) => app.running.app.prisma.$executeRawUnsafe(text);
    await sql(
      `CREATE OR REPLACE FUNCTION test_cut() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'connection to server was lost' USING ERRCODE = '08006'; END $$`,
    );
    await sql('CREATE TRIGGER test_cut BEFORE INSERT ON "Ticket" FOR EACH ROW EXECUTE FUNCTION test_cut()');
    try {
      const res = await send(operations.find((o) => o.name === 'ticketCreate')!, '/tickets', {
        key: c.key,
        body: { subject: 'Down', message: 'The database is away.' },
      });
      expect([res.status, res.headers.get('retry-after')]).toEqual([503, '5']);
    } finally {
      await sql('DROP TRIGGER IF EXISTS test_cut ON "Ticket"');
    }
    report();
  });

  it('every event the calls above recorded, as its webhook delivery body, validates against EventDelivery (each kind its typed payload)', async () => {
    const rows = await app.running.app.prisma.event.findMany({ where: { accountId: c.accountId } });
    const kinds = new Set(rows.map((r) => r.type));
    expect(kinds.size, [...kinds].join(', ')).toBeGreaterThanOrEqual(6);
    for (const row of rows)
      problems.push(
        ...contract
          .validate({ $ref: '#/components/schemas/EventDelivery' }, toEnvelope(row))
          .map((p) => `${row.type}: ${p}`),
      );
    // A payload off its kind's schema is refused: the check can fail.
    const [first] = rows;
    expect(
      contract.validate(
        { $ref: '#/components/schemas/EventDelivery' },
        { ...toEnvelope(first), data: { ...(first.data as object), extra: 1 } },
      ),
    ).not.toEqual([]);
    report();
  });

  it('the check can fail: an undeclared status, header or content type, or a body off its schema, is reported', () => {
    const json = (status: number, body: unknown, extra: Record<string, string> = {}) => ({
      status,
      headers: new Headers({ 'Content-Type': 'application/json', ...extra }),
      text: JSON.stringify(body),
    });
    const error = { statusCode: 404, message: 'Server not found.', error: 'Not Found', code: 'NOT_FOUND' };
    expect(contract.check('GET', '/servers/{id}', json(404, error))).toEqual([]);
    expect(contract.check('GET', '/servers/{id}', json(418, error))[0]).toMatch(/status not declared/);
    expect(contract.check('GET', '/servers/{id}', json(404, error, { 'X-Debug': '1' }))[0]).toMatch(
      /header x-debug not declared/,
    );
    expect(contract.check('GET', '/servers/{id}', json(404, error, { ETag: '"x"' }))[0]).toMatch(
      /header etag not declared/,
    );
    expect(
      contract.check('GET', '/servers/{id}', {
        ...json(404, error),
        headers: new Headers({ 'Content-Type': 'text/plain' }),
      })[0],
    ).toMatch(/content type text\/plain not declared/);
    expect(contract.check('GET', '/servers/{id}', json(404, { ...error, code: 'NOPE' }))[0]).toMatch(/body:/);
    expect(contract.check('GET', '/servers/{id}', json(404, error, { 'API-Version': '0.1' }))[0]).toMatch(
      /header api-version/,
    );
  });
});
