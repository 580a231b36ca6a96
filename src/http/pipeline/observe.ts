import { randomUUID } from 'node:crypto';
import { API_REVISION } from '../../version.ts';
import type { Exchange } from './exchange.ts';

const REQUEST_ID = /^[\w.:-]{1,100}$/;

/**
 * Stage 1, request id, log and metrics: every request gets an id (the client's X-Request-Id
 * when it is a valid one), a logger carrying it, the headers every answer carries, and one log
 * line and one metrics sample when its answer is sent. The metrics label is the route's
 * (`operation` on the scope, set by the route stage), so the series stay a fixed set whatever
 * paths clients send.
 */
export function observe(x: Exchange): void {
  const started = process.hrtime.bigint();
  const given = x.req.headers['x-request-id'];
  const requestId = typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
  x.scope.requestId = requestId;
  x.scope.log = x.app.log.child({ requestId });
  x.res.setHeader('X-Request-Id', requestId);
  x.res.setHeader('API-Version', API_REVISION);
  x.res.setHeader('X-Content-Type-Options', 'nosniff');
  x.res.on('finish', () => {
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    x.app.metrics.observe(x.scope.operation, x.method, x.res.statusCode, seconds);
    // The SSO landing's path carries a one-time credential: never log it.
    const path = x.path.startsWith('/sso/') ? '/sso/:token' : x.path;
    const ms = Math.round(seconds * 1000);
    x.scope.log.info(
      { method: x.req.method, path, status: x.res.statusCode, ms, operation: x.scope.operation },
      'request',
    );
  });
}
