import type { Exchange } from './exchange.ts';

/**
 * Stage 10, release: the request has executed (a stream's answer is produced from here on), so
 * the slots it held go to the next request. Runs however the request was settled.
 */
export function release(x: Exchange): void {
  for (const give of x.releases.splice(0)) give();
}
