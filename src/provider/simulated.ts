import { createHash, randomBytes, randomInt } from 'node:crypto';
import bcrypt from 'bcryptjs';
import { ID_PREFIX, newId } from '../db/ids.ts';
import { scheduleJob, type JobHandler } from './jobs.ts';
import { authorizedKeysLine } from './authorized-keys.ts';
import { SerialConsole } from './serial-console.ts';
import {
  minuteFigures,
  powerTimeline,
  REBOOT_SECONDS,
  RESTORE_SECONDS,
  usageSamples,
  type UsageSubject,
} from './simulated-usage.ts';
import {
  ProviderRefusal,
  type AddonSpec,
  type CapacityUnits,
  type ProviderCallbacks,
  type ProvisionRequest,
  type ServerProvider,
  type ServerStats,
  type UpstreamIp,
  type UsageRange,
} from './types.ts';
import type { Tx } from '../db/tx.ts';

const NODES = ['fra1-node07', 'fra1-node12', 'ams2-node03', 'lon1-node21'];
/** Simulated seconds a reinstall (wipe and rebuild) takes. */
const REINSTALL_SECONDS = 90;
/** Lifetime of a web-console ticket, in simulated seconds. */
const CONSOLE_TICKET_SECONDS = 60;
/** bcrypt's cost for the root password the guest agent keeps a hash of. */
const ROOT_PASSWORD_COST = 10;

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/**
 * Simulated address plan, all inside 198.18.0.0/15 (RFC 2544's benchmarking range), so
 * simulated servers can never collide with a real network:
 * - 198.18.0.0/16: single addresses (primary and extra IPs), reverse zones hosted;
 * - 198.19.0.0–198.19.127.255: whole /24s for /24-block add-ons, hosted;
 * - 198.19.128.0–198.19.199.255: /28 blocks (16 addresses) for capacity pools, hosted;
 * - 198.19.200.0–198.19.255.255: ranges leased from a partner network whose reverse zones
 *   the service does not host (zoneHosted: false). SEO IP Packs take two of their seven
 *   addresses from there, as real SEO packs spread over foreign ranges do.
 */
const LEASED_FIRST_OCTET3 = 200;
const SEO_LEASED_ADDRESSES = 2;

/**
 * A server's upstream log as text, one `<ISO time> <line>` per entry in the order they were
 * appended (operators and tests read it; customers never see it).
 */
export async function providerServerLog(db: Pick<Tx, 'providerServerLogEntry'>, serverId: string): Promise<string> {
  const rows = await db.providerServerLogEntry.findMany({
    where: { serverId },
    orderBy: { id: 'asc' },
    select: { at: true, line: true },
  });
  return rows.map((r) => `${r.at.toISOString()} ${r.line}\n`).join('');
}

/**
 * The default driver: a simulated datacenter. Work completes later on the simulated clock
 * (jobs in ProviderJob), finite stock lives in ProviderStock, and upstream details (node,
 * upstream id; the log in ProviderServerLogEntry) stay in ProviderServer, which customer
 * responses never show.
 */
export class SimulatedProvider implements ServerProvider {
  constructor(
    private readonly callbacks: ProviderCallbacks,
    private readonly opts: { provisionSeconds: number },
  ) {}

  readonly jobHandlers: Record<string, JobHandler> = {
    'server.provision': async (tx, payload: { serverId: string; pool?: boolean }, now) => {
      const ips = payload.pool ? [] : await this.allocateSingles(tx, 1);
      await this.log(tx, payload.serverId, now, `image written; network up${ips[0] ? ` on ${ips[0].address}` : ''}`);
      await this.callbacks.serverProvisioned(tx, payload.serverId, { ips }, now);
    },
    'server.settle': async (tx, payload: { serverId: string; status: 'running' | 'stopped' }, now) => {
      await this.callbacks.serverSettled(tx, payload.serverId, payload.status, now);
    },
    'server.reinstall': async (tx, payload: { serverId: string }, now) => {
      await this.log(tx, payload.serverId, now, 'rebuild finished');
      await this.callbacks.serverReinstalled(tx, payload.serverId, now);
    },
  };

  async provisionServer(tx: Tx, req: ProvisionRequest, now: Date): Promise<void> {
    await tx.providerServer.create({
      data: {
        serverId: req.serverId,
        upstreamId: newId(ID_PREFIX.upstream, now.getTime()),
        node: NODES[randomInt(NODES.length)],
        log: {
          create: [
            { at: now, line: `queued ${req.osTemplate} on ${req.productId}` },
            ...(req.sshKeys?.length ? [{ at: now, line: authorizedKeysLine(req.sshKeys) }] : []),
          ],
        },
      },
    });
    await scheduleJob(tx, 'server.provision', this.after(now, this.opts.provisionSeconds), {
      serverId: req.serverId,
      pool: req.poolAddresses !== undefined,
    });
  }

  async power(tx: Tx, serverId: string, action: 'start' | 'stop' | 'reboot', now: Date): Promise<void> {
    await this.log(tx, serverId, now, `power ${action}`);
    if (action === 'reboot')
      await scheduleJob(tx, 'server.settle', this.after(now, REBOOT_SECONDS), { serverId, status: 'running' });
  }

  async snapshot(tx: Tx, serverId: string, snapshotId: string, now: Date): Promise<{ sizeGb: number }> {
    await this.log(tx, serverId, now, `snapshot ${snapshotId}`);
    const server = await tx.server.findUniqueOrThrow({ where: { id: serverId }, select: { diskGb: true } });
    // A snapshot stores the used part of the disk: the simulation calls that a third.
    return { sizeGb: Math.max(1, Math.round(server.diskGb / 3)) };
  }

  async deleteSnapshot(tx: Tx, serverId: string, snapshotId: string, now: Date): Promise<void> {
    await this.log(tx, serverId, now, `snapshot ${snapshotId} deleted`);
  }

  async revertSnapshot(
    tx: Tx,
    serverId: string,
    snapshotId: string,
    resumeStatus: 'running' | 'stopped',
    now: Date,
  ): Promise<void> {
    await this.log(tx, serverId, now, `disk rolled back to ${snapshotId}`);
    await scheduleJob(tx, 'server.settle', this.after(now, RESTORE_SECONDS), { serverId, status: resumeStatus });
  }

  async reinstall(
    tx: Tx,
    serverId: string,
    template: { os: string; osTemplate: string; sshKeys?: string[] },
    now: Date,
  ): Promise<void> {
    await this.log(tx, serverId, now, `disk wiped; rebuilding from ${template.osTemplate}`);
    // A new image: the old root password is gone with the disk.
    await tx.providerServer.updateMany({ where: { serverId }, data: { rootPasswordHash: null } });
    if (template.sshKeys?.length) await this.log(tx, serverId, now, authorizedKeysLine(template.sshKeys));
    await scheduleJob(tx, 'server.reinstall', this.after(now, REINSTALL_SECONDS), { serverId });
  }

  async resize(
    tx: Tx,
    serverId: string,
    plan: { productId: string; vcpu: number; ramMb: number },
    running: boolean,
    now: Date,
  ): Promise<void> {
    await this.log(tx, serverId, now, `resize to ${plan.productId} (${plan.vcpu} vCPU, ${plan.ramMb} MB)`);
    if (running)
      await scheduleJob(tx, 'server.settle', this.after(now, REBOOT_SECONDS), { serverId, status: 'running' });
  }

  async setPtr(_tx: Tx, address: string, _hostname: string | null, _now: Date): Promise<void> {
    if (!zoneHosted(address))
      throw new ProviderRefusal('zone_not_hosted', `The reverse zone of ${address} is not hosted by the service.`);
  }

  async stats(tx: Tx, serverId: string, now: Date): Promise<ServerStats> {
    const s = await this.usageSubject(tx, serverId);
    return minuteFigures(s, now, s.status === 'running');
  }

  async usage(tx: Tx, serverId: string, range: UsageRange, now: Date): Promise<ServerStats[]> {
    const s = await this.usageSubject(tx, serverId);
    // The log says when the server ran; the current minute runs as the live sample says.
    const log = await tx.providerServerLogEntry.findMany({
      where: { serverId },
      orderBy: { id: 'asc' },
      select: { at: true, line: true },
    });
    return usageSamples(s, powerTimeline(log), range, now, s.status === 'running');
  }

  async resetPassword(tx: Tx, serverId: string, password: string, now: Date): Promise<void> {
    // The password goes to the guest agent, which keeps only a slow hash; it is never logged.
    const rootPasswordHash = await bcrypt.hash(password, ROOT_PASSWORD_COST);
    await tx.providerServer.updateMany({ where: { serverId }, data: { rootPasswordHash } });
    await this.log(tx, serverId, now, 'root password reset by the guest agent');
  }

  async consoleLogin(tx: Tx, serverId: string, now: Date): Promise<{ ticket: string; expiresAt: Date }> {
    const ticket = `con_${randomBytes(24).toString('base64url')}`;
    const expiresAt = this.after(now, CONSOLE_TICKET_SECONDS);
    await tx.providerConsoleTicket.create({
      data: { ticketHash: sha256(ticket), serverId, expiresAt, createdAt: now },
    });
    await this.log(tx, serverId, now, 'console ticket issued');
    return { ticket, expiresAt };
  }

  async redeemConsoleTicket(db: Tx, ticket: string, now: Date): Promise<string | null> {
    if (!/^con_[\w-]{32}$/.test(ticket)) return null;
    const ticketHash = sha256(ticket);
    // One conditional UPDATE: two connections racing with one ticket get one console.
    const { count } = await db.providerConsoleTicket.updateMany({
      where: { ticketHash, usedAt: null, expiresAt: { gt: now } },
      data: { usedAt: now },
    });
    if (count !== 1) return null;
    const row = await db.providerConsoleTicket.findUniqueOrThrow({ where: { ticketHash } });
    await this.log(db, row.serverId, now, 'console attached');
    return row.serverId;
  }

  async serialConsole(db: Tx, serverId: string, now: Date): Promise<SerialConsole> {
    const server = await db.server.findUniqueOrThrow({
      where: { id: serverId },
      select: { label: true, os: true, osTemplate: true, poolId: true, provisionedAt: true },
    });
    const ips = await db.serverIp.findMany({
      where: { serverId },
      orderBy: [{ isPrimary: 'desc' }, { address: 'asc' }],
      select: { address: true },
    });
    const log = await db.providerServerLogEntry.findMany({
      where: { serverId },
      orderBy: { id: 'asc' },
      select: { at: true, line: true },
    });
    const up = powerTimeline(log).filter((c) => c.running && c.at <= now.getTime());
    const bootedAt = new Date(up.at(-1)?.at ?? server.provisionedAt?.getTime() ?? now.getTime());
    const facts = {
      hostname: hostnameOf(server.label),
      os: server.os,
      osTemplate: server.osTemplate,
      addresses: ips.map((ip) => ip.address),
      privateAddress: server.poolId ? privateAddress(server.poolId, serverId) : null,
      bootedAt,
    };
    // The password is checked against the hash as it is at login time: a reset takes effect at once.
    return new SerialConsole(facts, async (password) => {
      const row = await db.providerServer.findUnique({ where: { serverId }, select: { rootPasswordHash: true } });
      return row?.rootPasswordHash ? bcrypt.compare(password, row.rootPasswordHash) : false;
    });
  }

  async terminate(tx: Tx, serverId: string, now: Date): Promise<void> {
    await this.log(tx, serverId, now, 'destroyed; disk erased');
  }

  async suspend(tx: Tx, serverId: string, reason: string, now: Date): Promise<void> {
    await this.log(tx, serverId, now, `suspended (powered off): ${reason}`);
  }

  async addonStock(tx: Tx, addon: AddonSpec): Promise<number | null> {
    if (!addon.stockKey) return null;
    await this.ensureStock(tx, addon.stockKey, addon.initialStock ?? 0);
    const row = await tx.providerStock.findUniqueOrThrow({ where: { key: addon.stockKey } });
    return row.available;
  }

  async attachAddon(tx: Tx, serverId: string, addon: AddonSpec, now: Date): Promise<{ ips: UpstreamIp[] }> {
    if (addon.stockKey) {
      await this.ensureStock(tx, addon.stockKey, addon.initialStock ?? 0);
      if (!(await this.take(tx, addon.stockKey, 1)))
        throw new ProviderRefusal('out_of_stock', 'This add-on is out of stock.');
    }
    let ips: UpstreamIp[] = [];
    if (addon.type === 'ip_block_24') ips = await this.allocateBlock24(tx);
    else if (addon.distinctSubnets) ips = await this.allocateSpread(tx, addon.ips);
    else if (addon.ips > 0) ips = await this.allocateSingles(tx, addon.ips);
    await this.log(
      tx,
      serverId,
      now,
      `add-on ${addon.type} attached${ips.length ? `; routing ${ips.length} addresses` : ''}`,
    );
    return { ips };
  }

  async detachAddon(tx: Tx, serverId: string, addon: AddonSpec, addresses: string[], now: Date): Promise<void> {
    if (addon.stockKey) await this.take(tx, addon.stockKey, -1);
    await this.log(tx, serverId, now, `add-on ${addon.type} detached; ${addresses.length} addresses released`);
  }

  async adjustPoolCapacity(tx: Tx, productId: string, capacity: CapacityUnits, delta: CapacityUnits): Promise<void> {
    // Fixed unit order, so concurrent adjustments lock the stock rows in the same order.
    for (const unit of ['vcpu', 'ram2gb', 'disk100', 'ip16'] as const) {
      if (!delta[unit]) continue;
      const key = `pool:${productId}:${unit}`;
      await this.ensureStock(tx, key, capacity[unit]);
      if (!(await this.take(tx, key, delta[unit]))) {
        throw new ProviderRefusal(
          'no_capacity',
          `The datacenter of ${productId} has not enough ${unit} capacity left for this selection.`,
        );
      }
    }
  }

  async allocatePoolBlocks(tx: Tx, count: number, _now: Date): Promise<UpstreamIp[]> {
    const out: UpstreamIp[] = [];
    const chosen = new Set<string>();
    // Each block is asked about at most once (a draw is cheap, a statement is not), so a nearly
    // full range costs at most one statement per block.
    const tried = new Set<string>();
    const blocks = (LEASED_FIRST_OCTET3 - 128) * 16;
    while (chosen.size < count) {
      if (tried.size === blocks)
        throw new ProviderRefusal('no_capacity', 'The datacenter has no free block of addresses left.');
      const octet3 = 128 + randomInt(LEASED_FIRST_OCTET3 - 128);
      const first = randomInt(16) * 16;
      const key = `198.19.${octet3}.${first}`;
      if (tried.has(key)) continue;
      tried.add(key);
      const block = Array.from({ length: 16 }, (_, i) => `198.19.${octet3}.${first + i}`);
      // Every address of the block, not only its first: a pool that shrinks gives its free
      // addresses back highest first, which can free a block's first address while later ones
      // stay assigned to its servers.
      if (await this.taken(tx, block)) continue;
      chosen.add(key);
      for (const address of block) out.push({ address, version: 4, zoneHosted: true });
    }
    return out;
  }

  async routeIps(tx: Tx, routes: { address: string; serverId: string | null }[], now: Date): Promise<void> {
    for (const r of routes) if (r.serverId) await this.log(tx, r.serverId, now, `routing ${r.address}`);
  }

  async releaseAddresses(_tx: Tx, _addresses: string[], _now: Date): Promise<void> {
    // Addresses are free once their rows are gone; nothing else to do upstream.
  }

  // -- internals --

  /** What a server's usage figures depend on. The plan's current size stands for the whole range. */
  private async usageSubject(tx: Tx, serverId: string): Promise<UsageSubject & { status: string }> {
    const s = await tx.server.findUniqueOrThrow({
      where: { id: serverId },
      select: { status: true, ramMb: true, diskGb: true, os: true, provisionedAt: true },
    });
    return { serverId, ...s };
  }

  private after(now: Date, seconds: number): Date {
    return new Date(now.getTime() + seconds * 1000);
  }

  /** Appends one entry to the server's upstream log (one INSERT, nothing rewritten); none for a server the upstream does not know. */
  private async log(tx: Tx, serverId: string, now: Date, line: string): Promise<void> {
    await tx.$executeRaw`INSERT INTO "ProviderServerLogEntry" ("serverId", "at", "line") SELECT "serverId", ${now}, ${line} FROM "ProviderServer" WHERE "serverId" = ${serverId}`;
  }

  /**
   * Whether any of `addresses` is held by any account. The datacenter's address space is one for
   * every customer, but the transaction it is handed may be a customer's tenant-scoped one, whose
   * model queries see that account's rows only: a raw statement sees them all.
   */
  private async taken(tx: Tx, addresses: string[]): Promise<boolean> {
    const rows = await tx.$queryRaw<unknown[]>`SELECT 1 FROM "ServerIp" WHERE "address" = ANY(${addresses}) LIMIT 1`;
    return rows.length > 0;
  }

  private async ensureStock(tx: Tx, key: string, initial: number): Promise<void> {
    await tx.providerStock.createMany({ data: [{ key, available: initial }], skipDuplicates: true });
  }

  /** Takes `n` units (negative: returns them) only if that many are left: one conditional UPDATE. */
  private async take(tx: Tx, key: string, n: number): Promise<boolean> {
    const { count } = await tx.providerStock.updateMany({
      where: { key, ...(n > 0 ? { available: { gte: n } } : {}) },
      data: { available: { decrement: n } },
    });
    return count === 1;
  }

  /** Picks free single addresses; the unique index on ServerIp.address settles the rare race. */
  private async allocateSingles(tx: Tx, count: number): Promise<UpstreamIp[]> {
    const out: UpstreamIp[] = [];
    while (out.length < count) {
      const address = `198.18.${randomInt(256)}.${1 + randomInt(254)}`;
      if (out.some((ip) => ip.address === address)) continue;
      if (!(await this.taken(tx, [address]))) out.push({ address, version: 4, zoneHosted: true });
    }
    return out;
  }

  /** A whole free /24 (all 256 addresses are routed to the server). */
  private async allocateBlock24(tx: Tx): Promise<UpstreamIp[]> {
    for (;;) {
      const octet3 = randomInt(128);
      const used = await tx.$queryRaw<
        unknown[]
      >`SELECT 1 FROM "ServerIp" WHERE "address" LIKE ${`198.19.${octet3}.%`} LIMIT 1`;
      if (used.length) continue;
      return Array.from({ length: 256 }, (_, i) => ({
        address: `198.19.${octet3}.${i}`,
        version: 4 as const,
        zoneHosted: true,
      }));
    }
  }

  /** `count` addresses, each from a different /24; two come from leased ranges (zone not hosted). */
  private async allocateSpread(tx: Tx, count: number): Promise<UpstreamIp[]> {
    const out: UpstreamIp[] = [];
    const subnets = new Set<string>();
    while (out.length < count) {
      const leased = out.length >= count - SEO_LEASED_ADDRESSES;
      const subnet = leased
        ? `198.19.${LEASED_FIRST_OCTET3 + randomInt(256 - LEASED_FIRST_OCTET3)}`
        : `198.18.${randomInt(256)}`;
      if (subnets.has(subnet)) continue;
      const address = `${subnet}.${1 + randomInt(254)}`;
      if (await this.taken(tx, [address])) continue;
      subnets.add(subnet);
      out.push({ address, version: 4, zoneHosted: zoneHosted(address) });
    }
    return out;
  }
}

/** The name a server's image takes from its label: lower case, letters, digits and hyphens. */
function hostnameOf(label: string): string {
  const name = label
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 63);
  return name || 'server';
}

/**
 * A pool server's address on its pool's private network (10.0.0.0/8, a /24 per pool), derived
 * from the ids: the simulation keeps no private address plan of its own.
 */
function privateAddress(poolId: string, serverId: string): string {
  const pool = createHash('sha256').update(poolId).digest();
  const host = createHash('sha256').update(serverId).digest();
  return `10.${pool[0]}.${pool[1]}.${2 + (host[0] % 252)}`;
}

/** Whether the service hosts the reverse zone of an address (see the address plan above). */
function zoneHosted(address: string): boolean {
  const [a, b, c] = address.split('.').map(Number);
  return !(a === 198 && b === 19 && c >= LEASED_FIRST_OCTET3);
}
