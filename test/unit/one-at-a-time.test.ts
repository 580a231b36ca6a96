import { describe, expect, it } from 'vitest';
import { oneAtATime } from '../../src/one-at-a-time.ts';

/** Work whose runs finish only when the test says so. */
function gatedWork() {
  const gates: (() => void)[] = [];
  let runs = 0;
  const work = oneAtATime(async () => {
    const run = ++runs;
    await new Promise<void>((resolve) => gates.push(resolve));
    return run;
  });
  const openNext = async () => {
    while (!gates.length) await new Promise((r) => setImmediate(r));
    gates.shift()!();
  };
  return { work, openNext, runs: () => runs };
}

describe('oneAtATime', () => {
  it('request: idle, it runs at once; a burst during a run costs exactly one more run, which starts after the burst', async () => {
    const { work, openNext, runs } = gatedWork();
    const first = work.request();
    expect(runs()).toBe(1);
    const burst = [work.request(), work.request(), work.request()];
    expect(runs()).toBe(1);
    await openNext();
    expect(await first).toBe(1);
    await openNext();
    expect(await Promise.all(burst)).toEqual([2, 2, 2]);
    expect(runs()).toBe(2);
  });

  it('request during a queued run joins it; one made once that run has started queues another', async () => {
    const { work, openNext, runs } = gatedWork();
    void work.run();
    const queued = work.request();
    await openNext(); // run 1 ends, the queued run 2 starts
    while (runs() < 2) await new Promise((r) => setImmediate(r));
    const later = work.request();
    expect(later).not.toBe(queued);
    await openNext();
    expect(await queued).toBe(2);
    await openNext();
    expect(await later).toBe(3);
  });

  it('run: every call made during a run gets a run of its own', async () => {
    const { work, openNext, runs } = gatedWork();
    const calls = [work.run(), work.run(), work.run()];
    for (let i = 0; i < 3; i++) await openNext();
    expect((await Promise.all(calls)).sort()).toEqual([1, 2, 3]);
    expect(runs()).toBe(3);
  });
});
