import type { PrismaClient } from '../../generated/prisma/client.ts';

/** How long a resolved credential is trusted without asking the database again (wall-clock milliseconds). */
export const PRINCIPAL_CACHE_TTL_MS = 5_000;
/** Longest a change waits for its own notification to come back before answering anyway (changing()). */
const ECHO_WAIT_MS = 2_000;
/** Most credentials remembered per instance; the least recently used goes first. */
export const PRINCIPAL_CACHE_MAX_ENTRIES = 10_000;
/**
 * The channel every instance LISTENs on for credential changes; the payload is the changed
 * credential's id (API key, OAuth grant or dashboard session). PostgreSQL delivers a
 * notification to sessions of its own database only, so the name needs no per-database part.
 */
export const CREDENTIALS_CHANNEL = 'svc_credentials';

/** What a credential resolved to, as stored: the caller checks expiry and audience on every use. */
export interface CachedCredential<T> {
  /** The id invalidations name (API key id, OAuth grant id, session id). */
  credentialId: string;
  /** Null when the credential never expires. */
  expiresAt: Date | null;
  value: T;
}

interface Entry {
  credential: CachedCredential<unknown>;
  /** Wall-clock ms after which the database is asked again. */
  freshUntil: number;
}

/**
 * Resolved credentials by the hash of their secret, so a request's credential costs no query
 * while it is fresh. Bounded (LRU), short-lived (TTL), and invalidated at once on every
 * instance: a revocation, scope or expiry change commits together with a notification on
 * CREDENTIALS_CHANNEL (announceCredentialChange), which every instance's listener turns into
 * `forget`. While the listener is not connected, nothing is served from or kept in the cache
 * (a change could be missed); on every (re)connection it starts empty.
 *
 * A lookup that was in flight when an invalidation arrived is not kept (the epoch moved): it
 * may have read the row before the change committed.
 */
export class PrincipalCache {
  private readonly entries = new Map<string, Entry>();
  /** Changes made on this instance waiting for their notification to come back (changing()). */
  private readonly echoes = new Map<string, Set<() => void>>();
  private epoch = 0;
  private listening = false;

  constructor(private readonly opts: { ttlMs?: number; maxEntries?: number; wallClock?: () => number } = {}) {}

  get size(): number {
    return this.entries.size;
  }

  /**
   * The credential under `key` (kind prefix + hash of the secret): from the cache when fresh
   * and not past its expiry on the simulated clock (`now`), else from `load` (null: no such
   * live credential, never cached).
   */
  async resolve<T>(key: string, now: Date, load: () => Promise<CachedCredential<T> | null>): Promise<CachedCredential<T> | null> {
    const hit = this.lookup(key, now);
    if (hit) return hit as CachedCredential<T>;
    const epoch = this.epoch;
    const loaded = await load();
    if (loaded && this.listening && epoch === this.epoch) this.store(key, loaded);
    return loaded;
  }

  /** The notification that a credential changed (revoked, scopes or expiry edited, session ended) arrived: drop every entry of it. */
  forget(credentialId: string): void {
    this.drop(credentialId);
    const waiting = this.echoes.get(credentialId);
    this.echoes.delete(credentialId);
    for (const resolve of waiting ?? []) resolve();
  }

  /**
   * Runs `commit` (a transaction that changes the credential and announces it) and answers once
   * this instance has forgotten the credential and its listener has the notification back.
   * PostgreSQL signals every listening session at the same commit, so by then the other
   * instances have it too, short of a stalled connection (the TTL bounds that).
   */
  async changing<T>(credentialId: string, commit: () => Promise<T>): Promise<T> {
    let echoed!: () => void;
    const echo = new Promise<void>((resolve) => (echoed = resolve));
    // Registered first: the embedded database delivers the notification before commit() returns.
    const waiting = this.echoes.get(credentialId) ?? new Set();
    waiting.add(echoed);
    this.echoes.set(credentialId, waiting);
    try {
      const result = await commit();
      this.drop(credentialId);
      if (this.listening) {
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([echo, new Promise<void>((resolve) => (timer = setTimeout(resolve, ECHO_WAIT_MS)))]);
        clearTimeout(timer);
      }
      return result;
    } finally {
      this.echoes.get(credentialId)?.delete(echoed);
      if (this.echoes.get(credentialId)?.size === 0) this.echoes.delete(credentialId);
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

  private drop(credentialId: string): void {
    this.epoch++;
    for (const [key, entry] of this.entries) if (entry.credential.credentialId === credentialId) this.entries.delete(key);
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

type Raw = Pick<PrismaClient, '$executeRaw'>;

/**
 * The notification that makes every instance forget a credential. Send it in the transaction
 * that changes the credential: PostgreSQL delivers it when (and only if) that commits.
 */
export function announceCredentialChange(prisma: Raw, credentialId: string) {
  return prisma.$executeRaw`SELECT pg_notify(${CREDENTIALS_CHANNEL}, ${credentialId})`;
}

/** `principals.changing(…)` when the caller has the instance's cache; the change alone otherwise (the notification still reaches every instance). */
export function changingCredential<T>(principals: PrincipalCache | undefined, credentialId: string, commit: () => Promise<T>): Promise<T> {
  return principals ? principals.changing(credentialId, commit) : commit();
}
