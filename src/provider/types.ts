import type { Prisma } from '../generated/prisma/client.ts';

export type Tx = Prisma.TransactionClient;

/** An address the upstream routed to a server. */
export interface UpstreamIp {
  address: string;
  version: 4 | 6;
  /** False when the reverse zone is not hosted by the service (PTR cannot be managed). */
  zoneHosted: boolean;
}

export interface ProvisionRequest {
  serverId: string;
  productId: string;
  vcpu: number;
  ramMb: number;
  diskGb: number;
  os: string;
  osTemplate: string;
}

export type PowerAction = 'start' | 'stop' | 'reboot';

/** What the platform asks of the upstream datacenter. Real drivers implement the same interface. */
export interface ServerProvider {
  /** Starts provisioning. Completion is reported later through ProviderCallbacks.serverProvisioned. */
  provisionServer(tx: Tx, req: ProvisionRequest, now: Date): Promise<void>;
  /**
   * Runs a power action. Start and stop take effect at once; a reboot keeps the server
   * `rebooting` until ProviderCallbacks.serverSettled reports it running again.
   */
  power(tx: Tx, serverId: string, action: PowerAction, now: Date): Promise<void>;
  /** Takes a disk snapshot; returns its size. */
  snapshot(tx: Tx, serverId: string, snapshotId: string, now: Date): Promise<{ sizeGb: number }>;
}

/** How the provider reports asynchronous completions back to the platform's services. */
export interface ProviderCallbacks {
  serverProvisioned(tx: Tx, serverId: string, result: { ips: UpstreamIp[] }, now: Date): Promise<void>;
  /** A transient state (rebooting) ended and the server is in `status` again. */
  serverSettled(tx: Tx, serverId: string, status: 'running' | 'stopped', now: Date): Promise<void>;
}
