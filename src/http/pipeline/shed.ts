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
  // A request waiting on another server or on its client holds no slot meanwhile: a stranger who
  // can make the service fetch a slow URL, or send a body slowly, cannot fill the instance.
  waitOutsideBy((wait) =>
    x.app.overload.waitWithoutSlot(
      () => yieldInstanceSlot(x),
      (slot) => holdSlot(x, slot),
      wait,
    ),
  );
}

function holdSlot(x: Exchange, slot: Release): void {
  x.instanceSlot = slot;
  x.releases.push(slot);
}

/**
 * Gives the instance's slot back early (false when it holds none), for a request that now only
 * waits (outside, or an MCP tasks/result waiting for the work to settle): the instance serves
 * others meanwhile, while the request still counts against its credential's requests in flight,
 * which bounds how many such waits one client holds.
 */
export function yieldInstanceSlot(x: Exchange): boolean {
  const slot = x.instanceSlot;
  if (!slot) return false;
  x.instanceSlot = undefined;
  x.releases.splice(x.releases.indexOf(slot), 1);
  slot();
  return true;
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
