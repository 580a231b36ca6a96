import { conditionalRead } from '../rest/conditional.ts';
import type { Exchange } from './exchange.ts';

/**
 * Stage 11, conditional: a /v1 operation's successful GET gets its strong ETag, or becomes a 304
 * when If-None-Match names it (rest/conditional.ts). Runs on the answer only; errors and streams pass.
 */
export function conditional(x: Exchange): void {
  if (x.answer && x.route?.kind === 'operation' && x.method === 'GET')
    x.answer = conditionalRead(x.req.headers['if-none-match'], x.answer);
}
