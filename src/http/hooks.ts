import type { IncomingMessage, ServerResponse } from 'node:http';
import type { App } from '../app-services.ts';
import { ApiError, apiErrorOf } from '../errors.ts';
import { receivePushHook } from '../modules/hosting/push-hook.ts';
import { headerOf } from './admit.ts';
import { readBody } from './body.ts';
import { rateLimitHeaders } from './rate-limit.ts';
import { requestScope } from './request-scope.ts';
import { sendError, sendJson } from './respond.ts';

/** Inbound hooks from other services, authenticated by their own signatures: `/hooks/git/:hostingId`. */
export function createHooksHandler(app: App) {
  return async function handleHooks(req: IncomingMessage, res: ServerResponse, path: string): Promise<void> {
    requestScope.getStore()!.operation = 'hooks git';
    const limit = await app.limits.consume('default', `hook:${req.socket.remoteAddress}`);
    const headers = rateLimitHeaders(limit);
    try {
      const match = /^\/hooks\/git\/([A-Za-z0-9_]{1,64})$/.exec(path);
      if (!match) throw new ApiError(404, `No route for ${req.method} ${path}.`);
      if (req.method !== 'POST') return sendError(res, 'rest', new ApiError(405, 'Use POST.'), { ...headers, Allow: 'POST' });
      if (!limit.allowed) throw new ApiError(429, `Rate limit of ${limit.limit} requests per minute exceeded.`);
      const body = await readBody(req, app.config.bodyLimitBytes);
      const status = await receivePushHook(app as any, match[1], body, { hubSignature: headerOf(req, 'x-hub-signature-256'), gitlabToken: headerOf(req, 'x-gitlab-token') });
      sendJson(res, 200, status, headers);
    } catch (err) {
      const api = apiErrorOf(err);
      if (!api) throw err;
      sendError(res, 'rest', api, headers);
    }
  };
}
