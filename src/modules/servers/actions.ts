import type { TenantDb } from '../../db/tenant.ts';
import { type ApiError, badRequest, refusal } from '../../errors.ts';
import { inoperable, SERVER_BUSY } from './server-row.ts';

// The state rules of a server's actions other than power (service.ts: powerRule), each the refusal
// its service answers. The services throw what these return and the graph's `Server.actions`
// reads the same functions, so a console offers exactly what the API accepts.

export const SERVER_ACTIONS = [
  'snapshot',
  'revert',
  'snapshotDelete',
  'reinstall',
  'changePlan',
  'addonAttach',
  'addonDetach',
  'ptr',
  'terminate',
] as const;
type ServerAction = (typeof SERVER_ACTIONS)[number];

/** The mutation that runs each action: its declared scope is the first thing it asks of the caller. */
export const ACTION_MUTATIONS: Record<ServerAction, string> = {
  snapshot: 'serverSnapshotCreate',
  revert: 'serverSnapshotRevert',
  snapshotDelete: 'serverSnapshotDelete',
  reinstall: 'serverReinstall',
  changePlan: 'serverChangePlan',
  addonAttach: 'serverAddonAttach',
  addonDetach: 'serverAddonDetach',
  // serverPtrDelete declares the same scope.
  ptr: 'serverPtrSet',
  terminate: 'serverTerminate',
};

/**
 * Actions whose services ask nothing of the server's state: only the credential's scope limits
 * them. Termination ends the server in any state the customer sees.
 */
const STATELESS = ['snapshotDelete', 'addonDetach', 'ptr', 'terminate'] as const;
type StatelessAction = (typeof STATELESS)[number];
const isStateless = (a: ServerAction): a is StatelessAction => (STATELESS as readonly string[]).includes(a);

const SNAPSHOTS_PER_SERVER = 10;

export const POOL_SERVER_HAS_NO_PLAN = refusal(409, 'A server inside a capacity pool has no plan of its own');

/** What each state-bound action is called in requireOperable's message ("retry a revert in a minute"). */
const WHAT: Record<Exclude<ServerAction, StatelessAction>, string> = {
  snapshot: 'a snapshot',
  revert: 'a revert',
  reinstall: 'a reinstall',
  changePlan: 'a plan change',
  addonAttach: 'an add-on attach',
};

/** The facts a rule reads besides the server row. */
interface ServerActionFacts {
  /** Snapshots the server keeps now. */
  snapshotCount: number;
}

/**
 * The refusal the action's service answers for a server in this state, or null when it runs.
 * Rules that depend on the request (the snapshot reverted to, the template, the plan chosen)
 * stay with the service.
 */
export function serverActionRule(
  action: ServerAction,
  server: { status: string; poolId: string | null },
  facts: ServerActionFacts,
): ApiError | null {
  if (isStateless(action)) return null;
  if (action === 'changePlan' && server.poolId)
    return POOL_SERVER_HAS_NO_PLAN.error(
      'A server inside a capacity pool has no plan of its own; its resources come from the pool.',
    );
  if (action === 'addonAttach' && server.poolId)
    return badRequest(
      'Servers inside a capacity pool take addresses from the pool; add-ons are not offered.',
      'addonId',
    );
  const why = inoperable(server.status, WHAT[action]);
  if (why) return SERVER_BUSY.error(why);
  if (action === 'snapshot' && facts.snapshotCount >= SNAPSHOTS_PER_SERVER)
    return badRequest(`A server keeps at most ${SNAPSHOTS_PER_SERVER} snapshots; delete one first.`);
  return null;
}

/** Throws the action's refusal, if any. */
export function requireAction(
  action: ServerAction,
  server: { status: string; poolId: string | null },
  facts: ServerActionFacts = { snapshotCount: 0 },
): void {
  const rule = serverActionRule(action, server, facts);
  if (rule) throw rule;
}

/** Snapshots per server, for the servers asked (one statement). */
export async function snapshotCounts(db: TenantDb, serverIds: readonly string[]): Promise<Map<string, number>> {
  const rows = await db.snapshot.groupBy({
    by: ['serverId'],
    where: { serverId: { in: [...serverIds] } },
    _count: true,
  });
  return new Map(rows.map((r) => [r.serverId, r._count]));
}
