import type { TenantDb } from '../../db/tenant.ts';
import { paginate, type PageArgs } from '../../core/paging.ts';
import type { PrismaClient } from '../../generated/prisma/client.ts';
import { ID_PREFIX, newId } from '../../db/ids.ts';
import type { Tx } from '../../db/tx.ts';
import { type ApiError, badRequest, refusal } from '../../errors.ts';
import { recordEvent } from '../../events/outbox.ts';
import { announceChange } from '../../events/live-changes.ts';
import type { PowerAction, ServerProvider, UpstreamIp } from '../../provider/types.ts';
import { addMonths } from '../billing/proration.ts';
import { resolveOsTemplate, resolveServerOrder } from '../catalogue/service.ts';
import { keysForInstall } from '../account/ssh-keys.ts';
import { isPoolActive } from '../pools/status.ts';
import {
  getServer,
  inoperable,
  SERVER_LABEL_RULES,
  lockServer,
  requireOperable,
  SERVER_BUSY,
  VISIBLE,
  type ServiceContext,
} from './server-row.ts';
import { checkInput } from '../../core/input-schemas.ts';
import { randomPassword } from '../../core/passwords.ts';
import { endAddons } from './addons.ts';
import { requireAction } from './actions.ts';
import { answeredByServerReads, listServersWithRelations } from './server-reads.ts';

export function listServers(db: TenantDb, args: PageArgs, query: object = {}) {
  // One statement, with no Prisma result mapping, when it answers the selection (server-reads.ts).
  if (answeredByServerReads(query)) return listServersWithRelations(db, args);
  return paginate(args, ID_PREFIX.server, (page) =>
    db.server.findMany({ ...query, ...page, where: { ...page.where, ...VISIBLE } }),
  );
}

export const REBOOT_NEEDS_RUNNING = refusal(409, 'Only a running server can be rebooted');
export const PRESERVED_POOL_SERVER = refusal(
  409,
  'A server preserved when its capacity pool was deleted cannot be started',
);
export const PASSWORD_NEEDS_RUNNING = refusal(409, 'The guest agent sets the password: the server must be running');

/**
 * Power actions. start on a running server and stop on a stopped one are no-ops that
 * answer 200 with the unchanged server and fire no event (nothing ran); reboot needs a
 * running server. The event fires when the action runs.
 */
export async function powerServer(ctx: ServiceContext, id: string, action: PowerAction, query: object = {}) {
  const now = ctx.app.clock.now();
  return ctx.db.$transaction(async (tx) => {
    await lockServer(tx, id);
    const server = await getServer(tx, id);
    // Only a start asks whether the server's pool is still active.
    const poolActive = action !== 'start' || !server.poolId || (await isPoolActive(tx, server.poolId));
    const rule = powerRule(server.status, action, poolActive);
    if (rule === 'unchanged') return getServer(tx, id, query);
    if (rule) throw rule;
    const target = action === 'stop' ? 'stopped' : action === 'start' ? 'running' : 'rebooting';
    await ctx.app.provider.power(tx, id, action, now);
    await tx.server.update({ where: { id }, data: { status: target } });
    await recordEvent(tx, server.accountId, 'server.power.changed', { serverId: id, action }, now);
    return getServer(tx, id, query);
  });
}

/** Why a start of a running server or a stop of a stopped one is not offered: it would change nothing. */
export const UNCHANGED_REASON = {
  start: 'The server is already running.',
  stop: 'The server is already stopped.',
} as const;

/**
 * The rule of a power action for a server in `status` (whose pool, if any, is active or not):
 * the refusal powerServer answers, `unchanged` for a start of a running server or a stop of a
 * stopped one (a 200 that runs nothing), or null when the action runs. The graph's
 * `Server.powerActions` reads the same rule, so a console offers exactly what the API accepts.
 */
export function powerRule(status: string, action: PowerAction, poolActive: boolean): ApiError | 'unchanged' | null {
  const why = inoperable(status, `a ${action}`);
  if (why) return SERVER_BUSY.error(why);
  if (action === 'start' && status === 'running') return 'unchanged';
  if (action === 'stop' && status === 'stopped') return 'unchanged';
  if (action === 'reboot' && status !== 'running')
    return REBOOT_NEEDS_RUNNING.error('Only a running server can be rebooted; start it instead.');
  if (action === 'start' && !poolActive)
    return PRESERVED_POOL_SERVER.error(
      'This server was preserved when its capacity pool was deleted and cannot be started; snapshot or terminate it.',
    );
  return null;
}

export interface ServerOrder {
  productId?: unknown;
  label?: unknown;
  os?: unknown;
  osTemplate?: unknown;
  /** SSH keys of the account for root's authorized_keys. */
  sshKeyIds?: readonly string[] | null;
}

type Plan = { id: string; vcpu: number; ramMb: number; diskGb: number };
type Template = { id: string; os: string };

/** The row of a server being ordered (standalone or in a pool): provisioning, sized by its plan. */
export function newServerRow(o: { accountId: string; label: string; product: Plan; template: Template; now: Date }) {
  return {
    id: newId(ID_PREFIX.server, o.now.getTime()),
    accountId: o.accountId,
    label: o.label,
    status: 'provisioning',
    productId: o.product.id,
    vcpu: o.product.vcpu,
    ramMb: o.product.ramMb,
    diskGb: o.product.diskGb,
    os: o.template.os,
    osTemplate: o.template.id,
    createdAt: o.now,
  };
}

/** What the upstream is asked to build for that row. */
export function provisionRequest(serverId: string, product: Plan, template: Template) {
  return {
    serverId,
    productId: product.id,
    vcpu: product.vcpu,
    ramMb: product.ramMb,
    diskGb: product.diskGb,
    os: template.os,
    osTemplate: template.id,
  };
}

/**
 * An order (the operator API's, or a customer's through its account's client: order.ts): the
 * server row now, the upstream build later (server.created).
 */
export async function orderServer(
  prisma: PrismaClient | TenantDb,
  provider: ServerProvider,
  accountId: string,
  order: ServerOrder,
  now: Date,
  /** Runs in the order's transaction (the operator's `"charge": true` bills the first month here). */
  onOrdered?: (
    tx: Tx,
    server: { id: string; label: string; productId: string },
    monthlyUsdCents: number,
  ) => Promise<unknown>,
) {
  // The operator API orders here without GraphQL's check of the declared rules.
  const labelInput = typeof order.label === 'string' ? order.label : '';
  checkInput(SERVER_LABEL_RULES, labelInput, 'label');
  const label = labelInput.trim();
  const { product, template } = await resolveServerOrder(prisma, {
    productId: order.productId,
    os: order.os,
    osTemplate: order.osTemplate,
  });
  const keys = await keysForInstall(prisma, accountId, order.sshKeyIds, template.os);
  return prisma.$transaction(async (tx: Tx) => {
    const server = await tx.server.create({
      data: { ...newServerRow({ accountId, label, product, template, now }), sshKeys: keys.installed },
    });
    await provider.provisionServer(
      tx,
      { ...provisionRequest(server.id, product, template), sshKeys: keys.publicKeys },
      now,
    );
    await onOrdered?.(tx, server, product.monthlyUsdCents);
    await announceChange(tx, accountId, 'server.status.changed', { serverId: server.id, status: server.status }, now);
    return server;
  });
}

// ---------------------------------------------------------------- termination

/**
 * Permanent termination: the disk and snapshots are destroyed, add-ons end (no refund),
 * the server's own addresses go back to the datacenter and pool addresses back to the
 * pool's block, then `server.terminated` (and `pool.ips.changed` when it gave pool addresses
 * back). The server disappears from lists and lookups.
 */
export async function terminateServer(ctx: ServiceContext, id: string) {
  const now = ctx.app.clock.now();
  return ctx.db.$transaction(async (tx) => {
    await lockServer(tx, id);
    const server = await getServer(tx, id);
    await endAddons(tx, ctx.app.provider, id, now);
    const own = await tx.serverIp.findMany({ where: { serverId: id, poolId: null }, select: { address: true } });
    await tx.serverIp.deleteMany({ where: { serverId: id, poolId: null } });
    await ctx.app.provider.releaseAddresses(
      tx,
      own.map((ip) => ip.address),
      now,
    );
    const freed = await tx.serverIp.updateMany({
      where: { serverId: id, poolId: { not: null } },
      data: { serverId: null, isPrimary: false },
    });
    await tx.snapshot.deleteMany({ where: { serverId: id } });
    await ctx.app.provider.terminate(tx, id, now);
    await tx.server.update({ where: { id }, data: { status: 'terminated', terminatedAt: now } });
    await recordEvent(tx, server.accountId, 'server.terminated', { serverId: id }, now);
    if (server.poolId && freed.count > 0)
      await recordEvent(
        tx,
        server.accountId,
        'pool.ips.changed',
        { poolId: server.poolId, assigned: 0, freed: freed.count },
        now,
      );
    return { id, status: 'terminated', terminatedAt: now };
  });
}

// ---------------------------------------------------------------- stats

export async function serverStats(ctx: ServiceContext, id: string) {
  const server = await getServer(ctx.db, id);
  const stats = await ctx.app.provider.stats(ctx.db, id, ctx.app.clock.now());
  return { serverId: id, status: server.status, ...stats };
}

// ---------------------------------------------------------------- reinstall

/**
 * Wipes the disk and rebuilds from a template. The server is `reinstalling` until the
 * rebuild finishes (about 90 s simulated), then `running` and `server.reinstalled` fires.
 */
export async function reinstallServer(
  ctx: ServiceContext,
  id: string,
  input: { osTemplate: string; os?: string | null; sshKeyIds?: readonly string[] | null },
  query: object = {},
) {
  const now = ctx.app.clock.now();
  const template = await resolveOsTemplate(ctx.db, input);
  const keys = await keysForInstall(ctx.db, ctx.principal!.accountId, input.sshKeyIds, template.os);
  return ctx.db.$transaction(async (tx) => {
    await lockServer(tx, id);
    const server = await getServer(tx, id);
    requireAction('reinstall', server);
    if (server.poolId && template.os !== 'linux')
      throw badRequest('Servers inside a capacity pool run Linux only.', 'osTemplate');
    await ctx.app.provider.reinstall(
      tx,
      id,
      { os: template.os, osTemplate: template.id, sshKeys: keys.publicKeys },
      now,
    );
    // The disk is wiped: the server has the keys of this build, and only those.
    await tx.server.update({
      where: { id },
      data: { status: 'reinstalling', os: template.os, osTemplate: template.id, sshKeys: keys.installed },
    });
    await announceChange(tx, server.accountId, 'server.status.changed', { serverId: id, status: 'reinstalling' }, now);
    return getServer(tx, id, query);
  });
}

// ---------------------------------------------------------------- root password

/** Sets a new random root password through the guest agent and returns it once (it is stored nowhere). */
export async function resetRootPassword(ctx: ServiceContext, serverId: string) {
  const now = ctx.app.clock.now();
  return ctx.db.$transaction(async (tx) => {
    await lockServer(tx, serverId);
    const server = await getServer(tx, serverId);
    requireOperable(server, 'a password reset');
    if (server.status !== 'running')
      throw PASSWORD_NEEDS_RUNNING.error('The guest agent sets the password: start the server first.');
    const password = randomPassword();
    await ctx.app.provider.resetPassword(tx, serverId, password, now);
    return { serverId, rootPassword: password, username: server.os === 'windows' ? 'Administrator' : 'root' };
  });
}

// ---------------------------------------------------------------- provider callbacks

const TRANSIENT = ['rebooting', 'restoring'];

/** Provider callbacks: asynchronous upstream work finishing. */
export const providerCallbacks = {
  /** The build finished: addresses recorded, server running, `server.created`. A server terminated meanwhile stays so. */
  async serverProvisioned(tx: Tx, serverId: string, result: { ips: UpstreamIp[] }, now: Date): Promise<void> {
    const current = await tx.server.findUniqueOrThrow({ where: { id: serverId } });
    if (current.status !== 'provisioning') return;
    const server = await tx.server.update({
      where: { id: serverId },
      // Pool servers are free: they renew with their pool, so they have no paid-up period of their own.
      data: { status: 'running', provisionedAt: now, paidUntil: current.poolId ? null : addMonths(now, 1) },
    });
    if (result.ips.length) {
      await tx.serverIp.createMany({
        data: result.ips.map((ip, i) => ({
          id: newId(ID_PREFIX.serverIp, now.getTime()),
          accountId: server.accountId,
          serverId,
          address: ip.address,
          version: ip.version,
          zoneHosted: ip.zoneHosted,
          isPrimary: i === 0,
        })),
      });
    }
    await recordEvent(
      tx,
      server.accountId,
      'server.created',
      { serverId, status: server.status, label: server.label },
      now,
    );
  },

  /**
   * A reboot or restore finished. Only moves a server still in a transient state (a suspension
   * meanwhile wins). No account event reports it (the reboot, plan change or revert was): open
   * pages hear it as a live change.
   */
  async serverSettled(tx: Tx, serverId: string, status: 'running' | 'stopped', now: Date): Promise<void> {
    const { count } = await tx.server.updateMany({
      where: { id: serverId, status: { in: TRANSIENT } },
      data: { status },
    });
    if (!count) return;
    const { accountId } = await tx.server.findUniqueOrThrow({ where: { id: serverId }, select: { accountId: true } });
    await announceChange(tx, accountId, 'server.status.changed', { serverId, status }, now);
  },

  /** A rebuild finished: the server runs the new template, `server.reinstalled`. */
  async serverReinstalled(tx: Tx, serverId: string, now: Date): Promise<void> {
    const { count } = await tx.server.updateMany({
      where: { id: serverId, status: 'reinstalling' },
      data: { status: 'running' },
    });
    if (!count) return;
    const server = await tx.server.findUniqueOrThrow({ where: { id: serverId } });
    await recordEvent(
      tx,
      server.accountId,
      'server.reinstalled',
      { serverId, os: server.os, osTemplate: server.osTemplate },
      now,
    );
  },
};
