import { afterEach, describe, expect, it } from 'vitest';
import { type Criticality, Overload } from '../../src/http/admission/overload.ts';

/** Which waiter a freed slot goes to (src/http/admission/overload.ts `next`). */
describe('the overload queue hands a freed slot', () => {
  let overload: Overload | undefined;
  afterEach(() => overload?.close());

  const start = () => {
    overload = new Overload(
      {
        maxInFlight: 1,
        maxQueued: 10,
        maxQueueWaitMs: 5_000,
        maxInFlightPerCredential: 10,
        maxEventLoopDelayMs: 10_000,
      },
      { shed: () => undefined, waited: () => undefined },
    );
    return overload;
  };
  /** Queues `names` in order; each name lands in `granted` when it gets the slot. */
  const queue = (o: Overload, names: string[], granted: string[], criticality: Criticality = 'read') =>
    names.map((name) =>
      Promise.resolve(o.acquire(criticality)).then((release) => {
        granted.push(name);
        return release;
      }),
    );

  it('to the request that waited longest while the queue drains quickly', async () => {
    const o = start();
    const held = o.acquire('read') as () => void;
    const granted: string[] = [];
    const waiting = queue(o, ['first', 'second', 'third'], granted);
    held();
    (await waiting[0])();
    (await waiting[1])();
    (await waiting[2])();
    expect(granted).toEqual(['first', 'second', 'third']);
  });

  it('to the newest once the oldest has stood in the queue: the late ones are the ones refused', async () => {
    const o = start();
    const held = o.acquire('read') as () => void;
    const granted: string[] = [];
    const [first, second] = queue(o, ['first', 'second'], granted);
    // The queue stands: its oldest request has waited past the point where it drains in time.
    await new Promise((r) => setTimeout(r, 150));
    const [third] = queue(o, ['third'], granted);
    held();
    (await third)();
    (await second)();
    (await first)();
    expect(granted).toEqual(['third', 'second', 'first']);
  });

  it('still to a write before any read, newest first among the writes when the queue stands', async () => {
    const o = start();
    const held = o.acquire('read') as () => void;
    const granted: string[] = [];
    const [read] = queue(o, ['read'], granted);
    const [oldWrite] = queue(o, ['old write'], granted, 'write');
    await new Promise((r) => setTimeout(r, 150));
    const [newWrite] = queue(o, ['new write'], granted, 'write');
    held();
    (await newWrite)();
    (await oldWrite)();
    (await read)();
    expect(granted).toEqual(['new write', 'old write', 'read']);
  });
});
