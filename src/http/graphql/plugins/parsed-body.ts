import type { Plugin } from 'graphql-yoga';
import { badRequest } from '../../../errors.ts';
import type { RequestContext } from '../../../schema/context.ts';

/**
 * The HTTP layer reads and parses every body before yoga (src/http/pipeline/body.ts: the size limit, 415
 * for a type other than JSON, 400 for broken JSON), so a POST to /graphql takes its parameters
 * from that parse instead of reading the stream and parsing it a second time. (REST calls take
 * their variables from the same parse: rest/rest-variables.ts.)
 */
export function useParsedBody(): Plugin<RequestContext> {
  return {
    onRequestParse({ request, serverContext, setRequestParser }) {
      const body = (serverContext as Partial<RequestContext>).jsonBody;
      if (request.method !== 'POST' || body === undefined) return;
      // An array is a batch: handed on as it is for yoga to refuse (batching stays off).
      setRequestParser(() => {
        if (typeof body !== 'object' || body === null) throw badRequest('The request body must be a JSON object.');
        return body as Record<string, unknown>;
      });
    },
  };
}
