import type { Tx } from '../db/tx.ts';
import type { SerialConsole } from './serial-console.ts';

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
  /**
   * For a server inside a capacity pool: the pool addresses it takes (possibly none: a
   * private-only server). The upstream then allocates no fresh address.
   */
  poolAddresses?: string[];
  /** OpenSSH public key lines for root's authorized_keys (Linux templates only); none when absent. */
  sshKeys?: string[];
}

export const POWER_ACTIONS = ['start', 'stop', 'reboot'] as const;
export type PowerAction = (typeof POWER_ACTIONS)[number];

/** What an add-on asks of the upstream. `stockKey` names finite stock; absent: not limited. */
export interface AddonSpec {
  type: string;
  ips: number;
  /** Addresses from that many different /24s (SEO IP Pack). */
  distinctSubnets?: boolean;
  stockKey?: string;
  /** Stock the datacenter starts with, used the first time `stockKey` is seen. */
  initialStock?: number;
}

export interface ServerStats {
  sampledAt: Date;
  cpuPercent: number;
  memoryUsedMb: number;
  memoryTotalMb: number;
  networkRxBytesPerSecond: number;
  networkTxBytesPerSecond: number;
  networkRxBytesTotal: number;
  networkTxBytesTotal: number;
  diskUsedGb: number;
  diskTotalGb: number;
  diskReadBytesPerSecond: number;
  diskWriteBytesPerSecond: number;
}

/**
 * A span of usage samples: `points` steps of `stepSeconds`, the first starting at `from` (a step
 * boundary). The last step may still be under way: it covers the minutes up to now.
 */
export interface UsageRange {
  from: Date;
  stepSeconds: number;
  points: number;
}

/** Pool units whose datacenter capacity is finite. */
export type CapacityUnits = Record<'vcpu' | 'ram2gb' | 'disk100' | 'ip16', number>;

/** A refusal of the upstream that the customer can act on (the services answer 400). */
export class ProviderRefusal extends Error {
  constructor(
    readonly reason: 'out_of_stock' | 'zone_not_hosted' | 'no_capacity',
    message: string,
  ) {
    super(message);
  }
}

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
  /** Deletes a stored snapshot; the live disk is untouched. */
  deleteSnapshot(tx: Tx, serverId: string, snapshotId: string, now: Date): Promise<void>;
  /** Rolls the live disk back; the server is down until serverSettled reports `resumeStatus`. */
  revertSnapshot(
    tx: Tx,
    serverId: string,
    snapshotId: string,
    resumeStatus: 'running' | 'stopped',
    now: Date,
  ): Promise<void>;
  /** Wipes the disk and rebuilds from a template (with `sshKeys` in root's authorized_keys); completion comes through serverReinstalled. */
  reinstall(
    tx: Tx,
    serverId: string,
    template: { os: string; osTemplate: string; sshKeys?: string[] },
    now: Date,
  ): Promise<void>;
  /** Changes vCPU/RAM (disk unchanged). A running server reboots: serverSettled reports it running again. */
  resize(
    tx: Tx,
    serverId: string,
    plan: { productId: string; vcpu: number; ramMb: number },
    running: boolean,
    now: Date,
  ): Promise<void>;
  /** Writes (hostname) or removes (null) the PTR record of an address; refuses when its zone is not hosted. */
  setPtr(tx: Tx, address: string, hostname: string | null, now: Date): Promise<void>;
  /** Live usage figures. */
  stats(tx: Tx, serverId: string, now: Date): Promise<ServerStats>;
  /**
   * Usage over a range, one sample per step (`sampledAt` its start), oldest first: per-second
   * figures averaged over the step's minutes, totals and disk space as at its last minute. Zero
   * before the server existed upstream, and zero load while it was not running.
   */
  usage(tx: Tx, serverId: string, range: UsageRange, now: Date): Promise<ServerStats[]>;
  /** Sets a new root password inside the guest. */
  resetPassword(tx: Tx, serverId: string, password: string, now: Date): Promise<void>;
  /** A short-lived, single-use ticket that opens the server's serial console (the web console). */
  consoleLogin(tx: Tx, serverId: string, now: Date): Promise<{ ticket: string; expiresAt: Date }>;
  /** Uses up a console ticket: the server it opens, or null for an unknown, used or expired one. */
  redeemConsoleTicket(db: Tx, ticket: string, now: Date): Promise<string | null>;
  /** The server's serial console for one connection: a login prompt, then a shell. */
  serialConsole(db: Tx, serverId: string, now: Date): Promise<SerialConsole>;
  /** Destroys the server and its disk; its own addresses go back to the datacenter. */
  terminate(tx: Tx, serverId: string, now: Date): Promise<void>;
  /** Powers a server off for a suspension. */
  suspend(tx: Tx, serverId: string, reason: string, now: Date): Promise<void>;
  /** Units of an add-on left in stock; null when not limited. */
  addonStock(tx: Tx, addon: AddonSpec): Promise<number | null>;
  /** Takes stock and routes the add-on's addresses to the server; ProviderRefusal('out_of_stock') when short. */
  attachAddon(tx: Tx, serverId: string, addon: AddonSpec, now: Date): Promise<{ ips: UpstreamIp[] }>;
  /** Stops routing the add-on's addresses at once and returns its stock. */
  detachAddon(tx: Tx, serverId: string, addon: AddonSpec, addresses: string[], now: Date): Promise<void>;
  /** Reserves (positive) or returns (negative) datacenter capacity for pools; ProviderRefusal('no_capacity') when short. */
  adjustPoolCapacity(tx: Tx, productId: string, capacity: CapacityUnits, delta: CapacityUnits): Promise<void>;
  /** Allocates `count` blocks of 16 addresses for a pool. */
  allocatePoolBlocks(tx: Tx, count: number, now: Date): Promise<UpstreamIp[]>;
  /** Routes addresses to servers (serverId) or to nobody (null). Moving an address away stops its routing at once. */
  routeIps(tx: Tx, routes: { address: string; serverId: string | null }[], now: Date): Promise<void>;
  /** Returns addresses to the datacenter. */
  releaseAddresses(tx: Tx, addresses: string[], now: Date): Promise<void>;
}

/** How the provider reports asynchronous completions back to the platform's services. */
export interface ProviderCallbacks {
  serverProvisioned(tx: Tx, serverId: string, result: { ips: UpstreamIp[] }, now: Date): Promise<void>;
  /** A transient state (rebooting, restoring) ended and the server is in `status` again. */
  serverSettled(tx: Tx, serverId: string, status: 'running' | 'stopped', now: Date): Promise<void>;
  /** A reinstall finished: the server runs the new template. */
  serverReinstalled(tx: Tx, serverId: string, now: Date): Promise<void>;
}
