import type { Exchange } from './exchange.ts';
import { criticalityOf } from './shed.ts';

/**
 * Stage 5, concurrency: a customer's credential has a bounded number of requests in flight on
 * the instance (429 TOO_MANY_CONCURRENT_REQUESTS beyond it, src/http/admission/overload.ts), so one
 * client's burst cannot take every slot from the others.
 */
export function concurrency(x: Exchange): void {
  const criticality = criticalityOf(x);
  if (x.principal && criticality)
    x.releases.push(x.app.overload.enterCredential(x.principal.credentialId, criticality));
}
