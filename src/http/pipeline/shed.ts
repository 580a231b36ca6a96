import { waitOutsideBy } from '../../core/outside-waits.ts';
import { ClientGone, type Criticality, type Release } from '../admission/overload.ts';
import type { Exchange } from './exchange.ts';

/**
 * Stage 3, shed: a slot of the instance before any work (src/http/admission/overload.ts). What cannot
 * start in time is refused at once with 503 + Retry-After, reads first; a request whose client
 * hangs up while it waits leaves the queue. Health, readiness and metrics never wait here.
 */
export async function shed(x: Exchange): Promise<void> {
  const criticality = criticalityOf(x);
  if (!criticality) return;
  try {
    holdSlot(x, await x.app.overload.acquire(criticality, (cancel) => x.res.once('close', cancel)));
  } catch (err) {
    if (!(err instanceof ClientGone)) throw err;
    x.sent = true; // the connection is closed: nothing to answer
    return;
  }
  waitOutsideBy((wait) => awayFromSlot(x, wait));
}

function holdSlot(x: Exchange, slot: Release): void {
  x.instanceSlot = slot;
  x.releases.push(slot);
}

/**
 * Runs `wait` (src/core/outside-waits.ts) without the instance's slot, then takes one again,
 * whatever the wait's outcome, ahead of the queue (Overload.reenter): a stranger who can make
 * the service fetch a slow URL holds no slot while it waits, so cannot fill the instance.
 */
async function awayFromSlot<T>(x: Exchange, wait: () => Promise<T>): Promise<T> {
  if (!x.instanceSlot) return wait();
  yieldInstanceSlot(x);
  try {
    return await wait();
  } finally {
    holdSlot(x, await x.app.overload.reenter());
  }
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
