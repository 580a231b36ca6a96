import { randomUUID } from 'node:crypto';
import type { PrismaClient } from '../../generated/prisma/client.ts';

/** How long a resolved credential is trusted without asking the database again (wall-clock milliseconds). */
const PRINCIPAL_CACHE_TTL_MS = 5_000;
/** Most credentials remembered per instance; the least recently used goes first. */
export const PRINCIPAL_CACHE_MAX_ENTRIES = 10_000;
/** Longest a credential change waits for every listening instance to acknowledge it before answering anyway. */
const CHANGE_ACK_WAIT_MS = 2_000;
/**
 * The channel every instance LISTENs on for credential changes. A change's payload is the
 * credential's id (API key, OAuth grant or dashboard session); an instance that has forgotten
 * it answers `ack <instanceId> <credentialId>` on the same channel. PostgreSQL delivers a
 * notification to sessions of its own database only, so the name needs no per-database part.
 */
export const CREDENTIALS_CHANNEL = 'svc_credentials';
/** The application_name of the listening connections, by which a change counts the instances to wait for. */
export const CREDENTIALS_LISTENER_NAME = 'svc-credential-listener';

/** What a credential resolved to, as stored: the caller checks expiry and audience on every use. */
export interface CachedCredential<T> {
  /** The id invalidations name (API key id, OAuth grant id, session id). */
  credentialId: string;
  /** Null when the credential never expires. */
  expiresAt: Date | null;
  value: T;
}

/** The other instances, as a change sees them (wired in src/app.ts). */
export interface CredentialPeers {
  /** Announces that this instance has forgotten the credential (`ack …` on CREDENTIALS_CHANNEL). */
  acknowledge(payload: string): Promise<void>;
  /** How many instances listen for credential changes now, this one included. */
  listening(): Promise<number>;
  onError?(err: Error): void;
}

interface Entry {
  credential: CachedCredential<unknown>;
  /** Wall-clock ms after which the database is asked again. */
  freshUntil: number;
}

/**
 * Resolved credentials by the hash of their secret, so a request's credential costs no query
 * while it is fresh. Bounded (LRU), short-lived (TTL), and invalidated on every instance before
 * a change is answered:
 * - the change commits together with a notification on CREDENTIALS_CHANNEL
 *   (announceCredentialChange); every instance's listener forgets the credential and
 *   acknowledges on the same channel;
 * - the instance that made the change (`changing`) forgets it at once and answers only when as
 *   many instances as are listening have acknowledged (at most CHANGE_ACK_WAIT_MS), so the
 *   client's next request, wherever it lands, finds no stale entry;
 * - while an instance's listener is not connected it serves and keeps nothing (a change could be
 *   missed); on every (re)connection it starts empty;
 * - a lookup in flight when an invalidation arrives is not kept (the epoch moved): it may have
 *   read the row before the change committed.
 */
export class PrincipalCache {
  readonly instanceId = randomUUID();
  private readonly entries = new Map<string, Entry>();
  /** Changes made here, waiting for acknowledgements: credential id → callbacks taking the acknowledging instance. */
  private readonly pending = new Map<string, Set<(instanceId: string) => void>>();
  private epoch = 0;
  private listening = false;

  constructor(
    private readonly opts: {
      ttlMs?: number;
      maxEntries?: number;
      wallClock?: () => number;
      peers?: CredentialPeers;
    } = {},
  ) {}

  get size(): number {
    return this.entries.size;
  }

  /**
   * The credential under `key` (kind prefix + hash of the secret): from the cache when fresh
   * and not past its expiry on the simulated clock (`now`), else from `load` (null: no such
   * live credential, never cached).
   */
  async resolve<T>(
    key: string,
    now: Date,
    load: () => Promise<CachedCredential<T> | null>,
  ): Promise<CachedCredential<T> | null> {
    const hit = this.lookup(key, now);
    if (hit) return hit as CachedCredential<T>;
    const epoch = this.epoch;
    const loaded = await load();
    if (loaded && this.listening && epoch === this.epoch) this.store(key, loaded);
    return loaded;
  }

  /** The listener's callback for a notification: a change (forget it, then acknowledge) or an acknowledgement. */
  notified(payload: string): void {
    const ack = /^ack (\S+) (\S+)$/.exec(payload);
    if (ack) {
      for (const acknowledged of this.pending.get(ack[2]) ?? []) acknowledged(ack[1]);
      return;
    }
    this.forget(payload);
    this.opts.peers
      ?.acknowledge(`ack ${this.instanceId} ${payload}`)
      .catch((err: Error) => this.opts.peers?.onError?.(err));
  }

  /** A credential changed (revoked, scopes or expiry edited, session ended): drop every entry of it. */
  forget(credentialId: string): void {
    this.epoch++;
    for (const [key, entry] of this.entries)
      if (entry.credential.credentialId === credentialId) this.entries.delete(key);
  }

  /**
   * Runs `commit` (a transaction that changes the credential and announces it), forgets the
   * credential here, and answers once every listening instance has acknowledged the change.
   */
  async changing<T>(credentialId: string, commit: () => Promise<T>): Promise<T> {
    const acknowledged = new Set<string>();
    let wake: () => void = () => undefined;
    const onAck = (instanceId: string) => {
      acknowledged.add(instanceId);
      wake();
    };
    // Registered first: the embedded database delivers the notification before commit() returns.
    const waiting = this.pending.get(credentialId) ?? new Set();
    waiting.add(onAck);
    this.pending.set(credentialId, waiting);
    try {
      const result = await commit();
      this.forget(credentialId);
      const peers = this.opts.peers;
      if (this.listening && peers) {
        const expected = await peers.listening();
        const deadline = Date.now() + CHANGE_ACK_WAIT_MS;
        while (acknowledged.size < expected && Date.now() < deadline) {
          let timer: NodeJS.Timeout | undefined;
          await new Promise<void>((resolve) => {
            wake = resolve;
            timer = setTimeout(resolve, deadline - Date.now());
          });
          clearTimeout(timer);
        }
      }
      return result;
    } finally {
      waiting.delete(onAck);
      if (waiting.size === 0 && this.pending.get(credentialId) === waiting) this.pending.delete(credentialId);
    }
  }

  /** The listener (re)connected: whatever changed meanwhile is unknown, so start empty and serve again. */
  listeningFromNow(): void {
    this.forgetAll();
    this.listening = true;
  }

  /** The listener lost its connection: serve nothing from memory until it is back. */
  notListening(): void {
    this.listening = false;
    this.forgetAll();
  }

  private forgetAll(): void {
    this.epoch++;
    this.entries.clear();
  }

  private lookup(key: string, now: Date): CachedCredential<unknown> | undefined {
    if (!this.listening) return undefined;
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    const expired = entry.credential.expiresAt !== null && entry.credential.expiresAt <= now;
    if (expired || entry.freshUntil <= this.wallNow()) {
      this.entries.delete(key);
      return undefined;
    }
    // Most recently used last: Map keeps insertion order, so the first key is the eviction candidate.
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry.credential;
  }

  private store(key: string, credential: CachedCredential<unknown>): void {
    this.entries.delete(key);
    this.entries.set(key, { credential, freshUntil: this.wallNow() + (this.opts.ttlMs ?? PRINCIPAL_CACHE_TTL_MS) });
    const max = this.opts.maxEntries ?? PRINCIPAL_CACHE_MAX_ENTRIES;
    while (this.entries.size > max) this.entries.delete(this.entries.keys().next().value!);
  }

  private wallNow(): number {
    return this.opts.wallClock?.() ?? Date.now();
  }
}

/** `principals.changing(…)` when the caller has the instance's cache; the change alone otherwise (the notification still reaches every instance). */
export function changingCredential<T>(
  principals: PrincipalCache | undefined,
  credentialId: string,
  commit: () => Promise<T>,
): Promise<T> {
  return principals ? principals.changing(credentialId, commit) : commit();
}

type Raw = Pick<PrismaClient, '$executeRaw'>;

/**
 * The notification that makes every instance forget a credential. Send it in the transaction
 * that changes the credential: PostgreSQL delivers it when (and only if) that commits.
 */
export function announceCredentialChange(prisma: Raw, payload: string) {
  return prisma.$executeRaw`SELECT pg_notify(${CREDENTIALS_CHANNEL}, ${payload})`;
}

/** Instances listening for credential changes on this PostgreSQL database (their listener connections). */
export async function countCredentialListeners(prisma: Pick<PrismaClient, '$queryRaw'>): Promise<number> {
  const [row] = await prisma.$queryRaw<{ n: number }[]>`
    SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND application_name = ${CREDENTIALS_LISTENER_NAME}`;
  return row?.n ?? 0;
}
