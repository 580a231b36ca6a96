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
        maxQueueWaitMs: 1_000,
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

  /** A request back from a wait outside (reenter); it lands in `granted` as 'back' when it gets a slot. */
  const comeBack = (o: Overload, granted: string[]) =>
    Promise.resolve(o.reenter()).then((release) => {
      granted.push('back');
      return release;
    });

  /** Past STANDING_QUEUE_MS: the requests queued so far count as late. */
  const pastStanding = () => new Promise((r) => setTimeout(r, 150));
  /** One turn of the event loop: what a freed slot was going to be granted at once has been. */
  const nextTurn = () => new Promise((r) => setImmediate(r));

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

  it('to the newest while a long queue stands: the late ones are the ones refused', async () => {
    const o = start();
    const held = o.acquire('read') as () => void;
    const granted: string[] = [];
    const [first, second] = queue(o, ['first', 'second'], granted);
    // The oldest request waits past the point where a queue drains in time; the queue grows.
    await pastStanding();
    const [third, fourth] = queue(o, ['third', 'fourth'], granted);
    held();
    (await fourth)();
    (await third)();
    // Back to twice the slots or fewer: first come, first served again.
    (await first)();
    (await second)();
    expect(granted).toEqual(['fourth', 'third', 'first', 'second']);
  });

  it('still to a write before any read, newest first among the writes when the queue stands', async () => {
    const o = start();
    const held = o.acquire('read') as () => void;
    const granted: string[] = [];
    const [read] = queue(o, ['read'], granted);
    const [oldWrite] = queue(o, ['old write'], granted, 'write');
    await pastStanding();
    const [newWrite] = queue(o, ['new write'], granted, 'write');
    held();
    (await newWrite)();
    (await oldWrite)();
    (await read)();
    expect(granted).toEqual(['new write', 'old write', 'read']);
  });

  it('held for a moment while every waiting read is late: a fresh request takes it, else the newest', async () => {
    const o = start();
    const held = o.acquire('read') as () => void;
    const granted: string[] = [];
    const [first, second, third] = queue(o, ['first', 'second', 'third'], granted);
    // Even the newest waiting request is late: the clients just served are about to come back.
    await pastStanding();
    held();
    await nextTurn();
    expect(granted).toEqual([]);
    const fresh = o.acquire('read');
    expect(typeof fresh).toBe('function');
    (fresh as () => void)();
    // No fresh request this time: once the hold is over, the newest waiting one gets the slot.
    await nextTurn();
    expect(granted).toEqual([]);
    (await third)();
    (await first)();
    (await second)();
    expect(granted).toEqual(['third', 'first', 'second']);
  });

  it('never held back from a late write', async () => {
    const o = start();
    const held = o.acquire('read') as () => void;
    const granted: string[] = [];
    const writes = queue(o, ['first', 'second', 'third'], granted, 'write');
    await pastStanding();
    held();
    await nextTurn();
    expect(granted).toEqual(['third']);
    (await writes[2])();
    (await writes[0])();
    (await writes[1])();
  });
  it('to a request back from a wait outside before any waiting write, and never refuses it', async () => {
    const o = start();
    const held = o.acquire('read') as () => void;
    const granted: string[] = [];
    const [write] = queue(o, ['write'], granted, 'write');
    const back = comeBack(o, granted);
    // Past the queue's budget: the write is refused, the returning request still waits.
    await expect(write).rejects.toMatchObject({ status: 503 });
    held();
    (await back)();
    expect(granted).toEqual(['back']);
    // Ahead of a write that waited longer.
    const again = o.acquire('read') as () => void;
    const order: string[] = [];
    const [later] = queue(o, ['write'], order, 'write');
    const first = comeBack(o, order);
    again();
    (await first)();
    (await later)();
    expect(order).toEqual(['back', 'write']);
    // With a slot free it takes one at once.
    expect(typeof o.reenter()).toBe('function');
  });
});
