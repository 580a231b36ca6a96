import { randomInt } from 'node:crypto';
import { ID_PREFIX, newId } from '../db/ids.ts';
import { scheduleJob, type JobHandler } from './jobs.ts';
import type { ProviderCallbacks, ProvisionRequest, ServerProvider, Tx, UpstreamIp } from './types.ts';

const NODES = ['fra1-node07', 'fra1-node12', 'ams2-node03', 'lon1-node21'];
/** Simulated seconds a reboot (and so a plan change) keeps a server down. */
export const REBOOT_SECONDS = 60;

/**
 * The default driver: a simulated datacenter. Work completes later on the simulated clock
 * (jobs in ProviderJob), and it keeps upstream details (node, upstream id, provisioning log)
 * in its own table, which customer responses never show.
 *
 * Addresses come from 198.18.0.0/15 (RFC 2544's benchmarking range), so simulated
 * servers can never collide with a real network.
 */
export class SimulatedProvider implements ServerProvider {
  constructor(
    private readonly callbacks: ProviderCallbacks,
    private readonly opts: { provisionSeconds: number },
  ) {}

  readonly jobHandlers: Record<string, JobHandler> = {
    'server.provision': async (tx, payload: { serverId: string }, now) => {
      const ips = await this.allocateIps(tx, 1);
      await this.log(tx, payload.serverId, now, `image written; network up on ${ips[0].address}`);
      await this.callbacks.serverProvisioned(tx, payload.serverId, { ips }, now);
    },
    'server.settle': async (tx, payload: { serverId: string; status: 'running' | 'stopped' }, now) => {
      await this.callbacks.serverSettled(tx, payload.serverId, payload.status, now);
    },
  };

  async power(tx: Tx, serverId: string, action: 'start' | 'stop' | 'reboot', now: Date): Promise<void> {
    await this.log(tx, serverId, now, `power ${action}`);
    if (action === 'reboot') await scheduleJob(tx, 'server.settle', new Date(now.getTime() + REBOOT_SECONDS * 1000), { serverId, status: 'running' });
  }

  async snapshot(tx: Tx, serverId: string, snapshotId: string, now: Date): Promise<{ sizeGb: number }> {
    await this.log(tx, serverId, now, `snapshot ${snapshotId}`);
    const server = await tx.server.findUniqueOrThrow({ where: { id: serverId }, select: { diskGb: true } });
    // A snapshot stores the used part of the disk: the simulation calls that a third.
    return { sizeGb: Math.max(1, Math.round(server.diskGb / 3)) };
  }

  private async log(tx: Tx, serverId: string, now: Date, line: string): Promise<void> {
    const row = await tx.providerServer.findUniqueOrThrow({ where: { serverId } });
    await tx.providerServer.update({ where: { serverId }, data: { provisioningLog: `${row.provisioningLog}${now.toISOString()} ${line}\n` } });
  }

  async provisionServer(tx: Tx, req: ProvisionRequest, now: Date): Promise<void> {
    await tx.providerServer.create({
      data: {
        serverId: req.serverId,
        upstreamId: newId(ID_PREFIX.upstream, now.getTime()),
        node: NODES[randomInt(NODES.length)],
        provisioningLog: `${now.toISOString()} queued ${req.osTemplate} on ${req.productId}\n`,
      },
    });
    await scheduleJob(tx, 'server.provision', new Date(now.getTime() + this.opts.provisionSeconds * 1000), { serverId: req.serverId });
  }

  /** Picks free addresses; the unique index on ServerIp.address settles the rare race. */
  private async allocateIps(tx: Tx, count: number): Promise<UpstreamIp[]> {
    const out: UpstreamIp[] = [];
    while (out.length < count) {
      const n = randomInt(2 * 65536 - 512) + 256;
      if ((n & 255) === 0 || (n & 255) === 255) continue;
      const address = `198.${18 + (n >> 16)}.${(n >> 8) & 255}.${n & 255}`;
      if (out.some((ip) => ip.address === address)) continue;
      const taken = await tx.serverIp.findUnique({ where: { address }, select: { id: true } });
      if (!taken) out.push({ address, version: 4, zoneHosted: true });
    }
    return out;
  }
}
