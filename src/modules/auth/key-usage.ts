import type { Logger } from 'pino';
import type { PrismaClient } from '../../generated/prisma/client.ts';
import type { Principal } from './service.ts';

/** `ApiKey.lastUsedAt` is recorded at most this often per key (simulated clock). */
const KEY_USE_RESOLUTION_MS = 60_000;
/** Keys remembered per instance before the ones written more than a minute ago are forgotten. */
const REMEMBERED_KEYS = 10_000;

/**
 * Records when an API key was last used, and when a dashboard session was last seen (the
 * account's session list), off the request's path: the write is started, never
 * awaited by the request, and its failure is only logged. Each instance skips keys it wrote
 * within the last minute (no query at all); the conditional UPDATE keeps several instances, or
 * a restart, from writing more often than that.
 */
export class KeyUseRecorder {
  private readonly writtenAt = new Map<string, number>();
  private readonly inFlight = new Set<Promise<void>>();

  constructor(private readonly deps: { prisma: PrismaClient; now: () => Date; log: Logger }) {}

  record(principal: Principal | null): void {
    if (principal?.kind !== 'api_key' && principal?.kind !== 'session') return;
    const keyId = principal.credentialId;
    const now = this.deps.now();
    const last = this.writtenAt.get(keyId);
    if (last !== undefined && now.getTime() - last < KEY_USE_RESOLUTION_MS) return;
    if (this.writtenAt.size >= REMEMBERED_KEYS) this.forgetOlderThan(now.getTime() - KEY_USE_RESOLUTION_MS);
    this.writtenAt.set(keyId, now.getTime());
    const cutoff = new Date(now.getTime() - KEY_USE_RESOLUTION_MS);
    const write = (
      principal.kind === 'api_key'
        ? this.deps.prisma.apiKey.updateMany({
            where: { id: keyId, OR: [{ lastUsedAt: null }, { lastUsedAt: { lte: cutoff } }] },
            data: { lastUsedAt: now },
          })
        : this.deps.prisma.dashboardSession.updateMany({
            where: { id: keyId, OR: [{ lastSeenAt: null }, { lastSeenAt: { lte: cutoff } }] },
            data: { lastSeenAt: now },
          })
    )
      .then(
        () => undefined,
        (err: unknown) => {
          // Let the next request try again.
          this.writtenAt.delete(keyId);
          const what = principal.kind === 'api_key' ? 'the API key last use' : 'the session last seen';
          this.deps.log.warn({ err, keyId }, `recording ${what} failed`);
        },
      )
      .finally(() => this.inFlight.delete(write));
    this.inFlight.add(write);
  }

  /** Resolves once every started write has finished (before the database closes). */
  async settled(): Promise<void> {
    await Promise.all([...this.inFlight]);
  }

  private forgetOlderThan(ms: number): void {
    for (const [id, at] of this.writtenAt) if (at <= ms) this.writtenAt.delete(id);
    // Still full (that many keys in one minute): start over rather than grow; the SQL guard still holds.
    if (this.writtenAt.size >= REMEMBERED_KEYS) this.writtenAt.clear();
  }
}
