import { apiErrorOf } from '../../../errors.ts';
import { InputRuleRefusal } from '../../../schema/input-schemas.ts';
import type { OperationCall } from '../call.ts';

/**
 * The Idempotency-Key's record, once the execution has its result (stages/idempotency.ts): the
 * result stored, sealed, for a repeat to replay; or, for a refusal decided before the operation
 * ran (401, 403, 429, an input rule's 400) and a server error (5xx), the key freed for a retry
 * (Stripe's rule: a request refused before it ran keeps no result).
 */
export async function remember(call: OperationCall): Promise<void> {
  const { claimed, result } = call;
  if (!claimed || !result) return;
  const errors = result.errors ?? [];
  const refusedBeforeRunning = errors.length > 0 && errors.every(refusedBeforeItRan);
  const failed = errors.some((e) => (apiErrorOf(e)?.status ?? 500) >= 500);
  await claimed.remember(result, !refusedBeforeRunning && !failed);
}

/** Refusals decided before an operation runs: no credential, no scope, a rate limit, an input rule. */
function refusedBeforeItRan(error: unknown): boolean {
  const api = apiErrorOf(error);
  return !!api && (api instanceof InputRuleRefusal || api.status === 401 || api.status === 403 || api.status === 429);
}
