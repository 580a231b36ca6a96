import { liftDatabaseBudget } from '../../core/database-budget.ts';
import { mcpChallenged } from '../../mcp/http.ts';
import { sendAnswer, sendError, streamAnswer } from '../request/respond.ts';
import { type Exchange, surfaceOf } from './exchange.ts';

/**
 * Stage 12, respond, where every answer and every error is shaped and sent: a conditional read's
 * count is settled by its status first (a 304 is free; admission/admit.ts); the answer goes out with the
 * rate-limit headers and the execution's own (theirs win over the answer's); an error in the
 * shape its surface speaks (GraphQL's `errors`, or the spec's error object), with MCP's challenge
 * on a 401; a stream part by part. A request a handler answered itself is left as it is.
 */
export async function respond(x: Exchange): Promise<void> {
  if (x.sent) return;
  const { res } = x;
  if (x.countOutcome) {
    const status = x.error?.status ?? x.answer?.status;
    if (status !== undefined) {
      const outcome = await x.countOutcome(status);
      x.limitHeaders = outcome.limitHeaders;
      if (outcome.refusal) {
        x.error = outcome.refusal;
        x.answer = undefined;
      }
    }
  }
  x.sent = true;
  if (x.stream) {
    liftDatabaseBudget();
    return streamAnswer(res, x.stream, { ...x.limitHeaders, ...Object.fromEntries(x.responseHeaders) });
  }
  if (x.answer) return sendAnswer(res, x.answer, { ...x.limitHeaders, ...Object.fromEntries(x.responseHeaders) });
  const error = x.error;
  if (!error) return;
  // A streamed answer that failed half-way cannot be turned into an error body.
  if (res.headersSent) return void res.destroy();
  if (error.status === 413) res.setHeader('Connection', 'close');
  const surface = surfaceOf(x);
  const headers = { ...x.limitHeaders, ...Object.fromEntries(x.responseHeaders) };
  sendError(res, surface, surface === 'mcp' ? mcpChallenged(x.app, x.req, error) : error, headers);
}
