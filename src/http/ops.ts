import type { IncomingMessage, ServerResponse } from 'node:http';
import type { App } from '../app-services.ts';
import { ApiError } from '../errors.ts';
import { operatorRefusal } from './admin.ts';
import { requestScope } from './request-scope.ts';
import { sendError, sendJson } from './respond.ts';

/**
 * /healthz (the process answers), /readyz (200 when the database answers and migrations are
 * applied; reports Redis when configured, `degraded` but still 200 without it), /metrics
 * (operator token only, like /admin: its series describe traffic to every account).
 */
export async function handleOps(app: App, req: IncomingMessage, res: ServerResponse, path: string): Promise<void> {
  // The surface routes only these three paths here, so the label set stays fixed.
  requestScope.getStore()!.operation = path.slice(1);
  if (req.method !== 'GET' && req.method !== 'HEAD')
    return sendError(res, 'ops', new ApiError(405, 'Use GET.'), { Allow: 'GET' });
  if (path === '/healthz') return sendJson(res, 200, { status: 'ok' });
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
    const status = !ok ? 'not ready' : checks.redis === 'unreachable' ? 'degraded' : 'ready';
    return sendJson(res, ok ? 200 : 503, { status, checks });
  }
  const refusal = operatorRefusal(app, req);
  if (refusal) return sendError(res, 'ops', refusal);
  const text = await app.metrics.registry.metrics();
  res.writeHead(200, { 'Content-Type': app.metrics.registry.contentType });
  res.end(text);
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
