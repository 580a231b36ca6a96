import type http from 'node:http';
import type { Page } from '../src/core/paging.ts';
import type { App } from '../src/app-services.ts';
import { tenantClient } from '../src/db/tenant.ts';
import { authenticate } from '../src/modules/auth/service.ts';
import type { ServerWithRelations } from '../src/modules/servers/server-reads.ts';
import { listServers } from '../src/modules/servers/service.ts';

const iso = (d: Date | null) => (d ? d.toISOString() : null);

/**
 * The baseline of scenarios 1 and 2: a bare node:http handler that authenticates the same
 * way, calls the same service function with the same includes and writes the same JSON as
 * GET /v1/servers — everything but the platform (routing, GraphQL execution, middleware).
 * The benchmark serves it on the app's own HTTP server (`mountBeside` in lib.ts).
 */
export function rawBaselineHandler(app: App): http.RequestListener {
  const include = {
    ips: { orderBy: [{ isPrimary: 'desc' as const }, { address: 'asc' as const }] },
    snapshots: { orderBy: { id: 'desc' as const } },
    addons: { where: { endedAt: null }, orderBy: { id: 'asc' as const } },
  };
  return async (req, res) => {
    try {
      const principal = await authenticate(
        app.prisma,
        req.headers.authorization ?? null,
        app.clock.now(),
        `${app.config.publicBaseUrl}/v1`,
      );
      if (!principal) throw new Error('no credential');
      const limit = Number(new URL(req.url ?? '/', 'http://x').searchParams.get('limit') ?? 50);
      const page = await listServers(tenantClient(app.prisma, principal.accountId), { limit }, { include });
      // listServers' type leaves out what `include` adds; the rows carry the relations.
      const body = serversPageBody(page as Page<ServerWithRelations>);
      res
        .writeHead(200, {
          'Content-Type': 'application/json; charset=utf-8',
          'Content-Length': Buffer.byteLength(body),
        })
        .end(body);
    } catch (err) {
      res.writeHead(500).end(String(err));
    }
  };
}

/** A page of servers with their relations as GET /v1/servers answers it, as JSON text. */
export function serversPageBody(page: {
  data: ServerWithRelations[];
  hasMore: boolean;
  nextCursor: string | null;
}): string {
  return JSON.stringify({ data: page.data.map(serverBody), hasMore: page.hasMore, nextCursor: page.nextCursor });
}

/** A server with its relations (Prisma's row) as GET /v1/servers/:id answers it. */
export function serverBody(s: ServerWithRelations) {
  return {
    id: s.id,
    label: s.label,
    status: s.status,
    productId: s.productId,
    vcpu: s.vcpu,
    ramMb: s.ramMb,
    diskGb: s.diskGb,
    os: s.os,
    osTemplate: s.osTemplate,
    suspendReason: s.suspendReason,
    poolId: s.poolId,
    renewsAt: iso(s.paidUntil),
    ips: s.ips.map((ip) => ({
      ip: ip.address,
      version: ip.version,
      ptr: ip.ptr,
      zoneHosted: ip.zoneHosted,
      primary: ip.isPrimary,
    })),
    snapshots: s.snapshots.map((n) => ({
      id: n.id,
      serverId: n.serverId,
      name: n.name,
      description: n.description,
      status: n.status,
      sizeGb: n.sizeGb,
      createdAt: iso(n.createdAt),
    })),
    addons: s.addons.map((a) => ({
      id: a.id,
      addonId: a.productId,
      type: a.type,
      monthlyUsdCents: a.monthlyUsdCents,
      attachedAt: iso(a.createdAt),
    })),
    sshKeys: s.sshKeys,
    createdAt: iso(s.createdAt),
    provisionedAt: iso(s.provisionedAt),
  };
}
