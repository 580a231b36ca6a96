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
  if (req.method !== 'GET' && req.method !== 'HEAD') return sendError(res, 'ops', new ApiError(405, 'Use GET.'), { Allow: 'GET' });
  if (path === '/healthz') return sendJson(res, 200, { status: 'ok' });
  if (path === '/readyz') {
    const checks: Record<string, string> = { migrations: app.ready ? 'ok' : 'pending' };
    try {
      await app.db.ping();
      checks.database = 'ok';
    } catch {
      checks.database = 'unreachable';
    }
    if (app.redis) {
      // Redis down degrades (per-instance rate limits, live events via replay) but does not stop serving.
      checks.redis = await Promise.race([
        app.redis.ping().then(() => 'ok', () => 'unreachable'),
        new Promise<string>((r) => setTimeout(() => r('unreachable'), 1000).unref()),
      ]);
    }
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
