import { waitOutsideBy } from '../../core/outside-waits.ts';
import { ClientGone, type Criticality } from '../admission/overload.ts';
import type { Exchange } from './exchange.ts';

/**
 * Stage 3, shed: a slot of the instance before any work (src/http/admission/overload.ts). What cannot
 * start in time is refused at once with 503 + Retry-After, reads first; a request whose client
 * hangs up while it waits leaves the queue. Health, readiness and metrics never wait here.
 */
export async function shed(x: Exchange): Promise<void> {
  const criticality = criticalityOf(x);
  if (!criticality) return;
  await takeInstanceSlot(x, criticality);
  waitOutsideBy((wait) => awayFromSlot(x, criticality, wait));
}

async function takeInstanceSlot(x: Exchange, criticality: Criticality): Promise<void> {
  try {
    x.instanceSlot = await x.app.overload.acquire(criticality, (cancel) => x.res.once('close', cancel));
    x.releases.push(x.instanceSlot);
  } catch (err) {
    if (!(err instanceof ClientGone)) throw err;
    x.sent = true; // the connection is closed: nothing to answer
  }
}

/**
 * Runs `wait` (src/core/outside-waits.ts) without the instance's slot, then takes a slot again the way
 * the request took its first (waiting in the queue, or refused with 503): a stranger who can
 * make the service fetch a slow URL holds no slot while it waits, so cannot fill the instance.
 * A client that hangs up meanwhile ends the request (ClientGone, settled as gone).
 */
async function awayFromSlot<T>(x: Exchange, criticality: Criticality, wait: () => Promise<T>): Promise<T> {
  if (!x.instanceSlot) return wait();
  yieldInstanceSlot(x);
  // Whatever the wait's outcome, the request goes on working (a failure is recorded): with a slot.
  const outcome = await settle(wait());
  await takeInstanceSlot(x, criticality);
  if (x.sent) throw new ClientGone();
  return outcome();
}

/** A promise's outcome, to be returned or thrown later. */
function settle<T>(promise: Promise<T>): Promise<() => T> {
  return promise.then(
    (value) => () => value,
    (err: unknown) => () => {
      throw err;
    },
  );
}

/**
 * Gives the instance's slot back early, for a request that now only waits (an MCP tasks/result
 * waiting for the work to settle): the instance serves others meanwhile, while the request still
 * counts against its credential's requests in flight, which bounds how many such waits one
 * client holds.
 */
export function yieldInstanceSlot(x: Exchange): void {
  const slot = x.instanceSlot;
  if (!slot) return;
  x.instanceSlot = undefined;
  x.releases.splice(x.releases.indexOf(slot), 1);
  slot();
}

/** How much a request matters when the instance is full: reads are shed first, writes last. */
export function criticalityOf(x: Exchange): Criticality | undefined {
  const route = x.route;
  const reading = x.method === 'GET' || x.method === 'HEAD';
  switch (route?.kind) {
    case 'ops':
      return undefined;
    case 'admin':
      return 'write';
    case 'graphql':
    case 'mcp':
      return reading ? 'read' : 'call';
    case 'document':
    case 'unrouted':
      return 'read';
    default:
      // Operations, binary streams and pages: a read is a read; anything else changes something.
      return reading ? 'read' : 'write';
  }
}
