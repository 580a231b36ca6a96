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
  try {
    x.releases.push(await x.app.overload.acquire(criticality, (cancel) => x.res.once('close', cancel)));
  } catch (err) {
    if (!(err instanceof ClientGone)) throw err;
    x.sent = true; // the connection is closed: nothing to answer
  }
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
