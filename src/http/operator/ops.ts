import type { App } from '../../app-services.ts';
import { type Answer, jsonAnswer } from '../request/respond.ts';
/**
 * /healthz (the process answers), /readyz (200 when the database answers and migrations are
 * applied; reports Redis when configured, `degraded` but still 200 without it; 503 `saturated`
 * while the instance sheds load, with its load), /metrics
 * (operator token only, like /admin, checked by the admit stage: its series describe traffic
 * to every account).
 */
export async function opsAnswer(app: App, path: '/healthz' | '/readyz' | '/metrics'): Promise<Answer> {
  if (path === '/healthz') return jsonAnswer(200, { status: 'ok' });
  if (path === '/readyz') {
    const checks: Record<string, string> = { migrations: app.ready ? 'ok' : 'pending' };
    // A frozen dependency (connected, not answering) reads as unreachable within the probe's bound.
    const [database, redis] = await Promise.all([
      answers(app.db.ping(), DATABASE_PROBE_MS),
      app.redis ? answers(app.redis.ping(), REDIS_PROBE_MS) : undefined,
    ]);
    checks.database = database;
    // Redis down degrades (per-instance rate limits, live events via replay) but does not stop serving.
    if (redis) checks.redis = redis;
    const ok = checks.database === 'ok' && checks.migrations === 'ok';
    // Saturated (src/http/admission/overload.ts): ready, but a balancer should send new work elsewhere for now.
    const load = app.overload.state();
    const status = !ok
      ? 'not ready'
      : load.saturated
        ? 'saturated'
        : checks.redis === 'unreachable'
          ? 'degraded'
          : 'ready';
    return jsonAnswer(ok && !load.saturated ? 200 : 503, { status, checks, load });
  }
  const text = await app.metrics.registry.metrics();
  return { status: 200, headers: { 'content-type': app.metrics.registry.contentType }, body: text };
}

const DATABASE_PROBE_MS = 2000;
const REDIS_PROBE_MS = 500;

function answers(probe: Promise<unknown>, ms: number): Promise<'ok' | 'unreachable'> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'unreachable'>((r) => (timer = setTimeout(() => r('unreachable'), ms)));
  return Promise.race([
    probe.then(
      () => 'ok' as const,
      () => 'unreachable' as const,
    ),
    late,
  ]).finally(() => clearTimeout(timer));
}
