import type { IncomingMessage, ServerResponse } from 'node:http';
import type { App } from '../../app-services.ts';
import { ApiError, apiErrorOf, withHeaders } from '../../errors.ts';
import { receivePushHook } from '../../modules/hosting/push-hook.ts';
import { headerOf } from '../admission/admit.ts';
import { readBody } from '../request/body.ts';
import { clientAddress } from '../request/client-address.ts';
import { rateLimitHeaders } from '../admission/rate-limit.ts';
import { requestScope } from '../request/request-scope.ts';
import { sendJson } from '../request/respond.ts';
import { noRoute, Router } from '../request/router.ts';

const HOOKS = new Router([{ method: 'POST', path: '/hooks/git/:hostingId' }]);

/** Inbound hooks from other services, authenticated by their own signatures: `/hooks/git/:hostingId`. */
export function createHooksHandler(app: App) {
  return async function handleHooks(req: IncomingMessage, res: ServerResponse, path: string): Promise<void> {
    requestScope.getStore()!.operation = 'hooks git';
    const limit = await app.limits.consume('default', `hook:${clientAddress(app.config, req)}`);
    const headers = rateLimitHeaders(limit);
    try {
      const match = HOOKS.match(req.method ?? 'GET', path);
      if (match.kind !== 'found') throw noRoute(match, req.method ?? 'GET', path);
      const { hostingId } = match.params;
      if (!/^[A-Za-z0-9_]{1,64}$/.test(hostingId)) throw new ApiError(404, `No route for ${req.method} ${path}.`);
      if (!limit.allowed) throw new ApiError(429, `Rate limit of ${limit.limit} requests per minute exceeded.`);
      const body = await readBody(req, app.config.bodyLimitBytes);
      const status = await receivePushHook(app, hostingId, body, {
        signature: headerOf(req, 'x-service-signature'),
        delivery: headerOf(req, 'x-service-delivery'),
      });
      sendJson(res, 200, status, headers);
    } catch (err) {
      // Shaped by the respond stage, with this route's rate-limit headers.
      const api = apiErrorOf(err);
      throw api ? withHeaders(api, headers) : err;
    }
  };
}
