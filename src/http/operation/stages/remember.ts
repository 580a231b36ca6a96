import type { OperationCall } from '../call.ts';

/**
 * The Idempotency-Key's record, once the execution has its result (stages/idempotency.ts): the
 * result stored, sealed, for a repeat to replay; or, for a refusal decided before the operation
 * ran (401, 403, 429, an input rule's 400) and a server error (5xx), the key freed for a retry.
 */
export async function remember(call: OperationCall): Promise<void> {
  if (call.claimed && call.result) await call.claimed.remember(call.result);
}
