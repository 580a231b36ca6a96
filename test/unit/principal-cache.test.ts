import { describe, expect, it } from 'vitest';
import {
  PRINCIPAL_CACHE_MAX_ENTRIES,
  PrincipalCache,
  type CachedCredential,
} from '../../src/modules/auth/principal-cache.ts';

const NOW = new Date('2026-06-01T12:00:00Z');

function counting(credentialId: string, expiresAt: Date | null = null) {
  const loader = {
    calls: 0,
    load: async (): Promise<CachedCredential<string>> => {
      loader.calls++;
      return { credentialId, expiresAt, value: credentialId };
    },
  };
  return loader;
}

function listeningCache(opts: ConstructorParameters<typeof PrincipalCache>[0] = {}) {
  const cache = new PrincipalCache(opts);
  cache.listeningFromNow();
  return cache;
}

describe('PrincipalCache', () => {
  it('is bounded: past maxEntries the least recently used entry goes', async () => {
    const cache = listeningCache({ maxEntries: 3 });
    const loaders = ['a', 'b', 'c', 'd'].map((id) => counting(id));
    for (const [i, l] of loaders.slice(0, 3).entries()) await cache.resolve(`k${i}`, NOW, l.load);
    await cache.resolve('k0', NOW, loaders[0].load); // k0 used again: k1 is now the oldest
    await cache.resolve('k3', NOW, loaders[3].load);
    expect(cache.size).toBe(3);
    for (const i of [0, 2, 3]) await cache.resolve(`k${i}`, NOW, loaders[i].load);
    expect(loaders.map((l) => l.calls)).toEqual([1, 1, 1, 1]); // all three still there
    await cache.resolve('k1', NOW, loaders[1].load);
    expect(loaders[1].calls).toBe(2); // k1 was the one that went
    for (let i = 0; i < 100; i++) await cache.resolve(`many${i}`, NOW, counting(`m${i}`).load);
    expect(cache.size).toBe(3);
    expect(PRINCIPAL_CACHE_MAX_ENTRIES).toBeGreaterThan(0);
  });

  it('the default bound holds under many distinct credentials', async () => {
    const cache = listeningCache();
    for (let i = 0; i < PRINCIPAL_CACHE_MAX_ENTRIES + 500; i++)
      await cache.resolve(`k${i}`, NOW, counting(`c${i}`).load);
    expect(cache.size).toBe(PRINCIPAL_CACHE_MAX_ENTRIES);
  });

  it('serves an entry until its TTL, then asks again', async () => {
    let wall = 1_000;
    const cache = listeningCache({ ttlMs: 5_000, wallClock: () => wall });
    const l = counting('key1');
    await cache.resolve('k', NOW, l.load);
    wall += 4_999;
    await cache.resolve('k', NOW, l.load);
    expect(l.calls).toBe(1);
    wall += 1;
    await cache.resolve('k', NOW, l.load);
    expect(l.calls).toBe(2);
  });

  it('never serves a credential at or past its expiry on the given clock', async () => {
    const cache = listeningCache();
    const expiresAt = new Date(NOW.getTime() + 60_000);
    const l = counting('key1', expiresAt);
    await cache.resolve('k', NOW, l.load);
    await cache.resolve('k', new Date(expiresAt.getTime() - 1), l.load);
    expect(l.calls).toBe(1);
    await cache.resolve('k', expiresAt, l.load);
    expect(l.calls).toBe(2);
  });

  it('forget drops every entry of the credential (all tokens of a grant) and nothing else', async () => {
    const cache = listeningCache();
    const grant = counting('grant1');
    const other = counting('key2');
    await cache.resolve('at:1', NOW, grant.load);
    await cache.resolve('at:2', NOW, grant.load);
    await cache.resolve('key:x', NOW, other.load);
    cache.forget('grant1');
    expect(cache.size).toBe(1);
    await cache.resolve('at:1', NOW, grant.load);
    await cache.resolve('key:x', NOW, other.load);
    expect([grant.calls, other.calls]).toEqual([3, 1]);
  });

  it('a lookup in flight when an invalidation arrives is returned but not kept', async () => {
    const cache = listeningCache();
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let calls = 0;
    const slow = async (): Promise<CachedCredential<string>> => {
      calls++;
      await gate;
      return { credentialId: 'key1', expiresAt: null, value: 'read before the change' };
    };
    const pending = cache.resolve('k', NOW, slow);
    cache.forget('key1');
    release();
    expect((await pending)?.value).toBe('read before the change');
    expect(cache.size).toBe(0);
    await cache.resolve('k', NOW, slow);
    expect(calls).toBe(2);
  });

  it('serves and keeps nothing while not listening for changes, and starts empty when listening again', async () => {
    const cache = new PrincipalCache();
    const l = counting('key1');
    await cache.resolve('k', NOW, l.load);
    await cache.resolve('k', NOW, l.load);
    expect([l.calls, cache.size]).toEqual([2, 0]);
    cache.listeningFromNow();
    await cache.resolve('k', NOW, l.load);
    await cache.resolve('k', NOW, l.load);
    expect(l.calls).toBe(3);
    cache.notListening();
    await cache.resolve('k', NOW, l.load);
    expect([l.calls, cache.size]).toEqual([4, 0]);
  });

  it('does not cache a credential that does not resolve', async () => {
    const cache = listeningCache();
    let calls = 0;
    const none = async () => {
      calls++;
      return null;
    };
    await cache.resolve('k', NOW, none);
    await cache.resolve('k', NOW, none);
    expect(calls).toBe(2);
  });

  it('changing() forgets at once here and answers when every listening instance has acknowledged', async () => {
    const sent: string[] = [];
    // The listener delivers to this instance what it sends (acknowledgements included), as PostgreSQL does.
    const peers = { acknowledge: async (payload: string) => void sent.push(payload), listening: async () => 2 };
    const cache = new PrincipalCache({ peers });
    cache.listeningFromNow();
    const l = counting('key1');
    await cache.resolve('k', NOW, l.load);
    let answered = false;
    const change = cache
      .changing('key1', async () => 'done')
      .then((r) => {
        answered = true;
        return r;
      });
    await new Promise((r) => setImmediate(r));
    await cache.resolve('k', NOW, l.load);
    expect(l.calls).toBe(2); // forgotten here before any acknowledgement
    // The change's own notification comes back: this instance forgets and acknowledges.
    cache.notified('key1');
    expect(sent).toEqual([`ack ${cache.instanceId} key1`]);
    cache.notified(sent[0]);
    await new Promise((r) => setImmediate(r));
    expect(answered).toBe(false); // one of two
    cache.notified('ack other-instance key2'); // another credential's: not counted
    await new Promise((r) => setImmediate(r));
    expect(answered).toBe(false);
    cache.notified('ack other-instance key1');
    expect(await change).toBe('done');
  });

  it('changing() does not wait while not listening (nothing is cached then), nor without peers', async () => {
    const cache = new PrincipalCache({ peers: { acknowledge: async () => undefined, listening: async () => 3 } });
    expect(await cache.changing('key1', async () => 'done')).toBe('done');
    const alone = listeningCache();
    expect(await alone.changing('key1', async () => 'done')).toBe('done');
  });
});
