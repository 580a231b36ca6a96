import type { IncomingMessage, ServerResponse } from 'node:http';
import type { App } from '../../app-services.ts';
import { waitOutside } from '../../core/outside-waits.ts';
import { ApiError } from '../../errors.ts';
import type { DocumentPolicy } from '../../modules/oauth/clients.ts';
import { clientAddress } from '../request/client-address.ts';
import { consumeLimit } from '../dashboard/forms.ts';

/** Client metadata documents one instance fetches at once; one more is refused with 503. */
const METADATA_FETCHES_AT_ONCE = 8;
/** What a refusal for a full instance asks to wait: a fetch takes at most 5 s. */
const FULL_RETRY_AFTER_SECONDS = 5;

/**
 * The policy for client ID metadata documents of one instance: anyone can make the service fetch
 * a URL before signing in (an OAuth client_id), so each fetch that will really happen — never a
 * cached client — counts per client address (rate-limit class clientMetadataFetch), and at most
 * METADATA_FETCHES_AT_ONCE are in flight, each without the request's slot of the instance.
 * Refusals are ApiErrors: 429 (limit headers set on `res`) and 503 (Retry-After set); a refusal
 * for a full instance gives its point back.
 */
export function createMetadataDocumentPolicy(app: App) {
  let inFlight = 0;
  return function documentPolicy(req: IncomingMessage, res: ServerResponse): DocumentPolicy {
    return {
      allowPrivate: app.config.webhookAllowPrivate,
      timeoutMs: app.config.webhookTimeoutMs,
      async aroundFetch(fetch) {
        const address = clientAddress(app.config, req);
        await consumeLimit(app, res, 'clientMetadataFetch', address);
        if (inFlight >= METADATA_FETCHES_AT_ONCE) {
          await app.limits.refund('clientMetadataFetch', address);
          res.setHeader('Retry-After', String(FULL_RETRY_AFTER_SECONDS));
          throw new ApiError(
            503,
            `Too many client metadata documents are being fetched right now. Retry after ${FULL_RETRY_AFTER_SECONDS} s.`,
          );
        }
        inFlight++;
        const fetching = () => fetch().finally(() => inFlight--);
        // The wait is on the client's server, not this instance: its slot serves others meanwhile.
        return waitOutside(fetching);
      },
    };
  };
}
