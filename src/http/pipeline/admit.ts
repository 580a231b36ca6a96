import { admit as admitCustomer } from '../admission/admit.ts';
import { operatorRefusal } from '../operator/admin.ts';
import { type Exchange, traitsOf } from './exchange.ts';

/**
 * Stage 4, admit: who is calling, and whether they may. A customer route (REST, GraphQL, MCP, and
 * a /v1 path no route takes) resolves the Bearer credential and counts the request against its
 * per-credential limit and its account's ceiling (admission/admit.ts; a conditional read is counted once its
 * answer is known, as a 304 is free; an MCP message spends its message budget here and its request
 * point, if it costs one, in the count stage); the dashboard's copy of a binary stream takes the session
 * cookie and its CSRF header instead, under the same limits. The operator API and /metrics need the operator token.
 * Public documents and probes, and pages with rules of their own, pass as they are.
 */
export async function admit(x: Exchange): Promise<void> {
  const who = traitsOf(x.route).admission;
  if (who === 'operator') {
    const refusal = operatorRefusal(x.app, x.req);
    if (refusal) throw refusal;
    return;
  }
  if (who !== 'customer' && who !== 'session') return;
  const admission = await admitCustomer(x.app, x.req, {
    conditional: isConditionalRead(x),
    credential: who === 'session' ? 'session' : 'bearer',
    message: x.route?.kind === 'mcp',
  });
  x.principal = admission.principal;
  x.limitHeaders = admission.limitHeaders;
  x.countOutcome = admission.countOutcome;
  x.countMessage = admission.countMessage;
  if (admission.refusal) throw admission.refusal;
}

/** A read of /v1 that may end in 304 (rest/conditional.ts): an operation's GET with If-None-Match (binary streams have no ETag). */
function isConditionalRead(x: Exchange): boolean {
  return x.route?.kind === 'operation' && x.method === 'GET' && x.req.headers['if-none-match'] !== undefined;
}
