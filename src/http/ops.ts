import type { IncomingMessage, ServerResponse } from 'node:http';
import type { App } from '../app-services.ts';
import { ApiError } from '../errors.ts';
import { sendError, sendJson } from './respond.ts';

/** /healthz (the process answers), /readyz (database reachable, migrations applied), /metrics. */
export async function handleOps(app: App, req: IncomingMessage, res: ServerResponse, path: string): Promise<void> {
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
    const ok = Object.values(checks).every((v) => v === 'ok');
    return sendJson(res, ok ? 200 : 503, { status: ok ? 'ready' : 'not ready', checks });
  }
  const text = await app.metrics.registry.metrics();
  res.writeHead(200, { 'Content-Type': app.metrics.registry.contentType });
  res.end(text);
}
