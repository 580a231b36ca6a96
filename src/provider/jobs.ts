import type { PrismaClient } from '../generated/prisma/client.ts';
import { ID_PREFIX, newId } from '../db/ids.ts';
import type { Tx } from '../db/tx.ts';

/**
 * Runs a job of one kind. Declared as a method so that each handler may type `payload` as what
 * its kind is scheduled with (JSON as stored; a method's parameters are checked bivariantly).
 */
export type JobHandler = { run(tx: Tx, payload: unknown, now: Date): Promise<void> }['run'];

/** Schedules work the simulated datacenter finishes at `runAt` on the simulated clock. */
export async function scheduleJob(tx: Tx, kind: string, runAt: Date, payload: object): Promise<void> {
  await tx.providerJob.create({ data: { id: newId(ID_PREFIX.providerJob), kind, runAt, payload } });
}

/**
 * Runs every job due at `now`, oldest first, each in its own transaction with its effects.
 * Jobs are claimed with FOR UPDATE SKIP LOCKED, so instances sharing a database never run one twice.
 */
export async function runDueJobs(
  prisma: PrismaClient,
  handlers: Record<string, JobHandler>,
  now: Date,
): Promise<number> {
  let ran = 0;
  for (;;) {
    const done = await prisma.$transaction(async (tx) => {
      const rows = await tx.$queryRaw<{ id: string; kind: string; payload: unknown; runAt: Date }[]>`
        SELECT "id", "kind", "payload", "runAt" FROM "ProviderJob"
        WHERE "doneAt" IS NULL AND "runAt" <= ${now}
        ORDER BY "runAt", "id" LIMIT 1 FOR UPDATE SKIP LOCKED`;
      const job = rows[0];
      if (!job) return false;
      const handler = handlers[job.kind];
      if (!handler) throw new Error(`No handler for provider job kind "${job.kind}"`);
      // Effects happen at the job's own due time, so the order of events follows the simulated clock.
      await handler(tx, job.payload, job.runAt);
      await tx.providerJob.update({ where: { id: job.id }, data: { doneAt: now } });
      return true;
    });
    if (!done) return ran;
    ran++;
  }
}
