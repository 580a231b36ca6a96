import { createHash } from 'node:crypto';
import { claimScope } from '../../../db/recovery.ts';
import { apiErrorOf, badRequest, IDEMPOTENCY_KEY_BUSY, IDEMPOTENCY_KEY_REUSED } from '../../../errors.ts';
import { honoursIdempotencyKey } from '../../../schema/operation.ts';
import { type OperationCall, refused } from '../call.ts';
import {
  claim,
  IDEMPOTENCY_KEY_PATTERN,
  refusedBeforeItRan,
  revive,
  sealingFor,
  stableJson,
  type StoredResult,
} from '../idempotency-records.ts';

/**
 * Idempotency-Key on every POST mutation (Stripe's rule, honoursIdempotencyKey): the first request
 * with a key runs and its result is stored (the `remember` stage); a repeat within 24 h gets the
 * stored result (same status, same body, `Idempotent-Replayed: true`) without running again; the
 * same key with other arguments → 422; while the first is still running (its lease, seconds, not
 * over) → 409. Keys are per credential: a record belongs to the credential that sent the key, and
 * another credential's request with that key is judged as if there were none. It runs after
 * authorization and the rate limits, so nothing is read or stored for a request they refuse.
 * Results and steps are stored sealed with the app's key: an answer can carry a secret (a root
 * password, a terminal token, a signing secret).
 */
export async function idempotency(call: OperationCall): Promise<void> {
  const { context, compiled } = call;
  const key = context.idempotencyKey;
  if (key === null || !context.principal) return;
  if (compiled.operation?.operation !== 'mutation') return;
  if (!compiled.roots.some(({ meta }) => honoursIdempotencyKey(meta, 'mutation'))) return;
  if (!IDEMPOTENCY_KEY_PATTERN.test(key))
    return refused(call, badRequest('Idempotency-Key must be 1 to 255 visible ASCII characters.', 'Idempotency-Key'));
  const { prisma, clock, config, webhookSecretKey } = context.app;
  const { accountId, credentialId } = context.principal;
  const sealing = sealingFor(webhookSecretKey, { accountId, credentialId, key });
  const fingerprint = createHash('sha256')
    .update(compiled.printed())
    .update('\0')
    .update(stableJson(call.variables))
    .digest('hex');

  const outcome = await claim(prisma, sealing, {
    accountId,
    credentialId,
    key,
    fingerprint,
    now: clock.now(),
    leaseMs: config.idempotencyLeaseMs,
  });
  if (outcome.kind === 'mismatch')
    return refused(
      call,
      IDEMPOTENCY_KEY_REUSED.error('This Idempotency-Key was already used with different request parameters.'),
    );
  if (outcome.kind === 'busy')
    return refused(
      call,
      IDEMPOTENCY_KEY_BUSY.error('A request with this Idempotency-Key is still being processed; retry later.'),
    );
  if (outcome.kind === 'stored') {
    context.responseHeaders.set('Idempotent-Replayed', 'true');
    call.result = revive(sealing.open(outcome.result) as StoredResult);
    return;
  }
  // Runs the mutation with its transactions recording their steps; a record whose steps
  // committed (its answer lost) runs again in replay mode: the same answer, nothing twice.
  const running = outcome.claim;
  if (running.recorded.length) context.responseHeaders.set('Idempotent-Replayed', 'true');
  call.within = (run) => claimScope.run(running, run);
  const mine = { accountId, credentialId, key, claimToken: running.token };
  call.claimed = {
    async remember(result) {
      running.closed = true;
      const statuses = result.errors?.map((e) => apiErrorOf(e)?.status ?? 500) ?? [];
      // Stripe's rule: a request refused before the operation ran keeps no result either.
      const refusedBeforeRunning = !!result.errors?.length && result.errors.every(refusedBeforeItRan);
      if (refusedBeforeRunning || statuses.some((s) => s >= 500)) {
        // Nothing committed: free the key so the retry runs. A committed step stays, so the retry replays it.
        const freeing = prisma.idempotencyRecord.deleteMany({ where: { ...mine, state: 'in_progress' } });
        // With the database away (503) the answer does not wait on it: the claim's lease frees the key.
        if (statuses.includes(503)) freeing.catch(() => undefined);
        else await freeing;
      } else {
        await prisma.idempotencyRecord.updateMany({
          where: mine,
          data: { state: 'completed', result: sealing.seal(result) },
        });
      }
    },
  };
}
