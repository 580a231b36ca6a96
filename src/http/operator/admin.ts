import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { App } from '../../app-services.ts';
import { type ApiError, badRequest, notFound, unauthorized } from '../../errors.ts';
import { accountView, createAccount } from '../../modules/account/service.ts';
import { mintApiKey, revokeApiKey, updateApiKey } from '../../modules/auth/service.ts';
import { getCatalogue } from '../../modules/catalogue/service.ts';
import { registerClient } from '../../modules/oauth/clients.ts';
import {
  chargeServerOrder,
  operatorDeposit,
  operatorInvoice,
  operatorPayInvoice,
} from '../../modules/billing/service.ts';
import { type DomainView, orderDomain } from '../../modules/domains/service.ts';
import { snakeCase } from '../../schema/rest-name.ts';
import { orderServer } from '../../modules/servers/service.ts';
import { suspendServer } from '../../modules/servers/suspension.ts';
import { staffReply } from '../../modules/tickets/service.ts';
import { orderHosting, setSimulatedDns } from '../../modules/hosting/service.ts';
import { Router } from '../request/router.ts';

type Body = Record<string, unknown>;

/** A domain as the customer API shows it: in snake_case, the REST casing of its type (domains/schema.ts). */
const restDomain = (d: DomainView) => Object.fromEntries(Object.entries(d).map(([k, v]) => [snakeCase(k), v]));
export interface AdminRoute {
  method: string;
  path: string;
  /** Returns [status, body]. */
  handle(app: App, params: Record<string, string>, body: Body): Promise<[number, unknown]>;
}

/** The operator API (DESIGN.md: Contracts). Each module adds its routes here as it lands. */
const ROUTES: AdminRoute[] = [
  {
    method: 'POST',
    path: '/admin/accounts',
    async handle(app, _p, body) {
      return [201, accountView(await createAccount(app.prisma, body, app.clock.now()))];
    },
  },
  {
    method: 'POST',
    path: '/admin/accounts/:accountId/api-keys',
    async handle(app, p, body) {
      await requireAccount(app, p.accountId);
      const expiresAt = timestampOrNull(body.expiresAt ?? null);
      if (body.name !== undefined && (typeof body.name !== 'string' || body.name.length < 1 || body.name.length > 100))
        throw badRequest('name must be 1 to 100 characters.', 'name');
      const key = await mintApiKey(app.prisma, p.accountId, {
        name: body.name as string | undefined,
        scopes: body.scopes,
        expiresAt,
      });
      return [201, key];
    },
  },
  {
    method: 'PATCH',
    path: '/admin/accounts/:accountId/api-keys/:keyId',
    async handle(app, p, body) {
      await requireAccount(app, p.accountId);
      for (const field of Object.keys(body))
        if (field !== 'scopes' && field !== 'expiresAt') throw badRequest(`Unknown body field "${field}".`, field);
      const expiresAt = body.expiresAt === undefined ? undefined : timestampOrNull(body.expiresAt);
      const key = await updateApiKey(
        app.prisma,
        p.accountId,
        p.keyId,
        { scopes: body.scopes, expiresAt },
        app.principals,
      );
      if (!key) throw notFound('API key');
      return [200, key];
    },
  },
  {
    method: 'DELETE',
    path: '/admin/accounts/:accountId/api-keys/:keyId',
    async handle(app, p) {
      await requireAccount(app, p.accountId);
      if (!(await revokeApiKey(app.prisma, p.accountId, p.keyId, app.clock.now(), app.principals)))
        throw notFound('API key');
      return [200, { id: p.keyId, revoked: true }];
    },
  },
  {
    method: 'POST',
    path: '/admin/accounts/:accountId/servers',
    async handle(app, p, body) {
      await requireAccount(app, p.accountId);
      if (body.charge !== undefined && typeof body.charge !== 'boolean')
        throw badRequest('charge must be true or false.', 'charge');
      const now = app.clock.now();
      let invoiceId: string | null = null;
      const server = await orderServer(
        app.prisma,
        app.provider,
        p.accountId,
        body,
        now,
        body.charge === true
          ? async (tx, s, monthlyUsdCents) => {
              invoiceId = (await chargeServerOrder(tx, p.accountId, s, monthlyUsdCents, now)).id;
            }
          : undefined,
      );
      return [
        201,
        {
          id: server.id,
          status: server.status,
          label: server.label,
          productId: server.productId,
          os: server.os,
          osTemplate: server.osTemplate,
          invoiceId,
        },
      ];
    },
  },
  {
    method: 'POST',
    path: '/admin/accounts/:accountId/hosting',
    async handle(app, p, body) {
      await requireAccount(app, p.accountId);
      const row = await orderHosting(app.prisma, app.hosting, p.accountId, body, app.clock.now());
      return [201, { id: row.id, status: row.status, domain: row.domain, productId: row.productId }];
    },
  },
  {
    method: 'PUT',
    path: '/admin/dns/:hostname',
    async handle(app, p, body) {
      return [200, await setSimulatedDns(app.prisma, app.hosting, p.hostname, body.target, body.txt)];
    },
  },
  {
    method: 'DELETE',
    path: '/admin/dns/:hostname',
    async handle(app, p) {
      const removed = await setSimulatedDns(app.prisma, app.hosting, p.hostname, null, null);
      return [200, { hostname: removed.hostname, target: null }];
    },
  },
  {
    method: 'POST',
    path: '/admin/accounts/:accountId/domains',
    async handle(app, p, body) {
      await requireAccount(app, p.accountId);
      const order = await orderDomain(app.prisma, p.accountId, body, app.clock.now());
      return [201, { ...order, domain: restDomain(order.domain) }];
    },
  },
  {
    method: 'POST',
    path: '/admin/accounts/:accountId/wallet/deposits',
    async handle(app, p, body) {
      await requireAccount(app, p.accountId);
      return [201, await operatorDeposit(app.prisma, p.accountId, body, app.clock.now())];
    },
  },
  {
    method: 'POST',
    path: '/admin/accounts/:accountId/invoices',
    async handle(app, p, body) {
      await requireAccount(app, p.accountId);
      return [201, await operatorInvoice(app.prisma, p.accountId, body, app.clock.now())];
    },
  },
  {
    method: 'POST',
    path: '/admin/invoices/:invoiceId/pay',
    async handle(app, p, body) {
      return [200, await operatorPayInvoice(app.prisma, p.invoiceId, body, app.clock.now())];
    },
  },
  {
    method: 'POST',
    path: '/admin/tickets/:ticketId/replies',
    async handle(app, p, body) {
      return [201, await staffReply(app.prisma, p.ticketId, body, app.clock.now())];
    },
  },
  {
    method: 'POST',
    path: '/admin/servers/:serverId/suspend',
    async handle(app, p, body) {
      const server = await suspendServer(app.prisma, app.provider, p.serverId, body.reason, app.clock.now());
      return [200, { id: server.id, status: server.status, suspendReason: server.suspendReason }];
    },
  },
  {
    method: 'POST',
    path: '/admin/clock/advance',
    async handle(app, _p, body) {
      const seconds = body.seconds;
      if (typeof seconds !== 'number' || !Number.isFinite(seconds) || seconds <= 0 || seconds > 400 * 86400) {
        throw badRequest('seconds must be a positive number of at most 400 days.', 'seconds');
      }
      const now = await app.clock.advance(seconds);
      const jobsRun = await app.runDueWork();
      return [200, { now: now.toISOString(), jobsRun }];
    },
  },
  {
    method: 'POST',
    path: '/admin/oauth/clients',
    async handle(app, _p, body) {
      if (typeof body.name !== 'string' || body.name.trim().length < 1 || body.name.trim().length > 100)
        throw badRequest('name must be 1 to 100 characters.', 'name');
      return [201, await registerClient(app.prisma, body.name, app.clock.now())];
    },
  },
  {
    method: 'GET',
    path: '/admin/catalogue',
    async handle(app) {
      return [200, await getCatalogue(app.prisma)];
    },
  },
];

/** The operator API's routes, matched by the pipeline's route stage (api.ts). */
export const adminRouter = new Router(ROUTES);

function timestampOrNull(value: unknown): Date | null {
  if (value === null) return null;
  const at = new Date(String(value));
  if (typeof value !== 'string' || Number.isNaN(at.getTime()))
    throw badRequest('expiresAt must be an ISO 8601 timestamp.', 'expiresAt');
  return at;
}

async function requireAccount(app: App, accountId: string): Promise<void> {
  const found =
    /^[0-9a-f-]{36}$/i.test(accountId) &&
    (await app.prisma.account.findUnique({ where: { id: accountId }, select: { id: true } }));
  if (!found) throw notFound('Account');
}

export function tokenMatches(given: string, expected: string): boolean {
  // Compare digests so the comparison is constant-time whatever the lengths.
  const a = createHash('sha256').update(given).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b);
}

/** The operator token check of /admin, also guarding /metrics: the 401 to answer, if any. */
export function operatorRefusal(app: App, req: IncomingMessage): ApiError | undefined {
  const auth = /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? '');
  if (!auth || !tokenMatches(auth[1], app.adminToken))
    return unauthorized('The operator API needs Authorization: Bearer $ADMIN_TOKEN.');
  return undefined;
}
