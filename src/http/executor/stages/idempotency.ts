import { badRequest, IDEMPOTENCY_KEY_BUSY, IDEMPOTENCY_KEY_REUSED } from '../../../errors.ts';
import { claimKey, IDEMPOTENCY_KEY_PATTERN } from '../../../modules/auth/idempotency.ts';
import { honoursIdempotencyKey } from '../../../schema/operation.ts';
import { type OperationCall, refused } from '../call.ts';

/**
 * Idempotency-Key on every POST mutation (Stripe's rule, honoursIdempotencyKey): the first request
 * with a key runs inside its claim and its result is stored (the `remember` stage); a repeat
 * within 24 h gets the stored result (same status, same body, `Idempotent-Replayed: true`)
 * without running again; the same key with other arguments → 422; while the first is still
 * running → 409. Keys are per credential (src/modules/auth/idempotency.ts). It runs after
 * authorization and the rate limits, so nothing is read or stored for a request they refuse.
 */
export async function idempotency(call: OperationCall): Promise<void> {
  const { context, compiled } = call;
  const key = context.idempotencyKey;
  if (key === null || !context.principal) return;
  if (compiled.operation?.operation !== 'mutation') return;
  if (!compiled.roots.some(({ meta }) => honoursIdempotencyKey(meta, 'mutation'))) return;
  if (!IDEMPOTENCY_KEY_PATTERN.test(key))
    return refused(call, badRequest('Idempotency-Key must be 1 to 255 visible ASCII characters.', 'Idempotency-Key'));
  const { accountId, credentialId } = context.principal;
  const claim = await claimKey(context.app, {
    accountId,
    credentialId,
    key,
    document: compiled.printed(),
    variables: call.variables,
  });
  switch (claim.kind) {
    case 'mismatch':
      return refused(
        call,
        IDEMPOTENCY_KEY_REUSED.error('This Idempotency-Key was already used with different request parameters.'),
      );
    case 'busy':
      return refused(
        call,
        IDEMPOTENCY_KEY_BUSY.error('A request with this Idempotency-Key is still being processed; retry later.'),
      );
    case 'stored':
      context.responseHeaders.set('Idempotent-Replayed', 'true');
      call.result = claim.result;
      return;
    case 'run':
      if (claim.replaying) context.responseHeaders.set('Idempotent-Replayed', 'true');
      call.within = claim.within;
      call.claimed = claim;
  }
}
