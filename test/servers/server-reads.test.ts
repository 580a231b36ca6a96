import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ID_PREFIX, newId } from '../../src/db/ids.ts';
import { rawReadsOf, tenantClient, tenantRows, tenantStatement } from '../../src/db/tenant.ts';
import {
  getServerWithRelations,
  listServersWithRelations,
  SERVER_RELATIONS,
} from '../../src/modules/servers/server-reads.ts';
import { VISIBLE } from '../../src/modules/servers/server-row.ts';
import { paginate } from '../../src/core/paging.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { comparable } from '../helpers/rows.ts';

// The hot server reads run one hand-written statement each (src/modules/servers/server-reads.ts);
// here each must return exactly what Prisma's findMany / findFirst with the same relations
// returns for the same data (deep equal: every scalar, Dates as Dates, relation order and
// filters), on whichever database the suite runs on. Drift in either fails here.

let app: TestApp;
let a: string;
let b: string;
const ids: string[] = [];
let otherAccountServer: string;
let terminated: string;

beforeAll(async () => {
  app = await startTestApp();
  a = (await app.customer()).accountId;
  b = (await app.customer()).accountId;
  const prisma = app.running.app.prisma;
  const now = Date.now();
  const server = (accountId: string, i: number, extra: object = {}) => ({
    id: newId(ID_PREFIX.server, now - i * 1000),
    accountId,
    label: `reads-${i}`,
    status: 'running',
    productId: 'std-1c-2g-50',
    vcpu: 1 + (i % 3),
    ramMb: 2048,
    diskGb: 50,
    os: 'linux',
    osTemplate: 'debian-12',
    provisionedAt: new Date(now - i * 1000),
    paidUntil: new Date(now + 30 * 86400_000 + i),
    ...extra,
  });
  const rows = [
    server(a, 1),
    server(a, 2, { status: 'suspended', suspendReason: 'abuse report', paidUntil: null, provisionedAt: null }),
    server(a, 3, { status: 'terminated', terminatedAt: new Date(now) }),
    server(a, 4, { status: 'stopped' }),
    server(a, 5),
    server(a, 6, { status: 'provisioning', provisionedAt: null }),
    server(b, 7),
  ];
  await prisma.server.createMany({ data: rows });
  ids.push(...rows.filter((r) => r.accountId === a && r.status !== 'terminated').map((r) => r.id));
  terminated = rows[2].id;
  otherAccountServer = rows[6].id;
  const [s1, s2, , s4] = rows;
  const ip = (srv: { id: string; accountId: string }, address: string, extra: object = {}) => ({
    id: newId(ID_PREFIX.serverIp),
    accountId: srv.accountId,
    serverId: srv.id,
    address,
    ...extra,
  });
  await prisma.serverIp.createMany({
    data: [
      // Text order of addresses (10 before 9) and the primary first, whatever the insertion order.
      ip(s1, '100.64.9.9'),
      ip(s1, '100.64.9.10', { ptr: 'mail.example.com' }),
      ip(s1, '100.64.9.200', { isPrimary: true }),
      ip(s1, '2001:db8::1', { version: 6, zoneHosted: false }),
      ip(s4, '100.64.9.50', { isPrimary: true }),
      ip(rows[6], '100.64.9.60', { isPrimary: true }),
      // A pool address of the account that belongs to no server.
      { id: newId(ID_PREFIX.serverIp), accountId: a, serverId: null, poolId: 'pool_none', address: '100.64.9.70' },
    ],
  });
  await prisma.snapshot.createMany({
    data: [0, 1, 2].map((k) => ({
      id: newId(ID_PREFIX.snapshot, now + k),
      accountId: a,
      serverId: s1.id,
      name: `snap-${k}`,
      description: k ? `before upgrade ${k}` : '',
      status: k ? 'available' : 'creating',
      sizeGb: 10 * k,
    })),
  });
  await prisma.serverAddon.createMany({
    data: [
      {
        id: newId('sad', now),
        accountId: a,
        serverId: s1.id,
        productId: 'addon-ipv4-1',
        type: 'extra_ip',
        activeType: 'extra_ip',
        monthlyUsdCents: 300,
        chargedUsdCents: 150,
      },
      {
        id: newId('sad', now + 1),
        accountId: a,
        serverId: s1.id,
        productId: 'addon-backups',
        type: 'backups',
        activeType: null,
        monthlyUsdCents: 500,
        chargedUsdCents: 500,
        endedAt: new Date(now),
      },
      {
        id: newId('sad', now + 2),
        accountId: a,
        serverId: s2.id,
        productId: 'addon-backups',
        type: 'backups',
        activeType: 'backups',
        monthlyUsdCents: 500,
        chargedUsdCents: 0,
      },
    ],
  });
});
afterAll(() => app?.stop());

const prismaPage = (db: ReturnType<typeof tenantClient>, limit: number, cursor?: string) =>
  paginate({ limit, cursor }, 'srv', (page) =>
    db.server.findMany({ include: SERVER_RELATIONS, ...page, where: { ...page.where, ...VISIBLE } }),
  );

describe('typed server reads', () => {
  it('a page of servers equals Prisma’s, page after page, with the same cursors', async () => {
    const db = tenantClient(app.running.app.prisma, a);
    let cursor: string | undefined;
    const seen: string[] = [];
    do {
      const typed = await listServersWithRelations(db, { limit: 2, cursor });
      const expected = await prismaPage(db, 2, cursor);
      expect(comparable(typed)).toStrictEqual(comparable(expected));
      seen.push(...typed.data.map((s) => s.id));
      cursor = typed.nextCursor ?? undefined;
    } while (cursor);
    // Every visible server of the account once, newest first; not the terminated one, not another account's.
    expect(seen).toEqual(ids);
    const whole = await listServersWithRelations(db, { limit: 50 });
    expect(comparable(whole)).toStrictEqual(comparable(await prismaPage(db, 50)));
    const first = whole.data[0];
    expect(first.ips.map((i) => i.address)).toEqual(['100.64.9.200', '100.64.9.10', '100.64.9.9', '2001:db8::1']);
    expect(first.snapshots.map((s) => s.name)).toEqual(['snap-2', 'snap-1', 'snap-0']);
    expect(first.addons.map((x) => x.productId)).toEqual(['addon-ipv4-1']);
    expect(first.createdAt).toBeInstanceOf(Date);
  });

  it('one server equals Prisma’s findFirst for every server; missing, terminated and other accounts’ read as missing', async () => {
    const db = tenantClient(app.running.app.prisma, a);
    for (const id of ids) {
      expect(comparable(await getServerWithRelations(db, id))).toStrictEqual(
        comparable(await db.server.findFirst({ include: SERVER_RELATIONS, where: { id, ...VISIBLE } })),
      );
    }
    for (const id of [terminated, otherAccountServer, 'srv_missing']) {
      await expect(getServerWithRelations(db, id)).rejects.toMatchObject({ status: 404 });
    }
    // The other account sees its own server and nothing of the first's.
    const other = tenantClient(app.running.app.prisma, b);
    expect((await listServersWithRelations(other, { limit: 50 })).data.map((s) => s.id)).toEqual([otherAccountServer]);
    expect(comparable(await getServerWithRelations(other, otherAccountServer))).toStrictEqual(
      comparable(await other.server.findFirst({ include: SERVER_RELATIONS, where: { id: otherAccountServer } })),
    );
  });

  it('an account with no servers reads an empty page', async () => {
    const db = tenantClient(app.running.app.prisma, randomUUID());
    expect(comparable(await listServersWithRelations(db, {}))).toStrictEqual(
      comparable({ data: [], hasMore: false, nextCursor: null }),
    );
  });

  it('tenant statements run only on a tenant client and must filter on the account', () => {
    const statement = tenantStatement('SELECT id FROM "Server" s WHERE s."accountId" = $1::uuid');
    // The type checker refuses the unscoped client (TenantDb is branded); at run time it is refused too.
    // @ts-expect-error a PrismaClient is not a TenantDb
    expect(() => tenantRows(app.running.app.prisma, statement)).toThrow(/tenant client/);
    expect(() => tenantStatement('SELECT id FROM "Server"')).toThrow(/accountId/);
  });

  it("tenant statements go to the database's driver, below Prisma, from the app's (clock-stamped) client", async () => {
    const reads = rawReadsOf(app.running.app.prisma);
    expect(reads).toBeDefined();
    const c = await app.customer();
    const sql: string[] = [];
    const rows = reads!.rows.bind(reads);
    reads!.rows = (text, values) => {
      sql.push(text);
      return rows(text, values);
    };
    try {
      await listServersWithRelations(tenantClient(app.running.app.prisma, c.accountId), {});
    } finally {
      reads!.rows = rows;
    }
    expect(sql).toHaveLength(1);
  });

  it('REST and GraphQL serve the server list and detail from the typed reads, with the same body', async () => {
    const c = await app.customer();
    const id = newId(ID_PREFIX.server);
    await app.running.app.prisma.server.create({
      data: {
        id,
        accountId: c.accountId,
        label: 'via-api',
        status: 'running',
        productId: 'std-1c-2g-50',
        vcpu: 1,
        ramMb: 2048,
        diskGb: 50,
        os: 'linux',
        osTemplate: 'debian-12',
      },
    });
    const list = await app.call('GET', '/v1/servers', { key: c.key });
    expect(list.status).toBe(200);
    expect(list.body.data).toEqual([
      expect.objectContaining({ id, label: 'via-api', ips: [], snapshots: [], addons: [], renewsAt: null }),
    ]);
    const detail = await app.call('GET', `/v1/servers/${id}`, { key: c.key });
    expect(detail.body).toEqual(list.body.data[0]);
  });
});
