import { randomUUID } from 'node:crypto';
import type http from 'node:http';
import type { ExecutionArgs } from 'graphql';
import { CloseCode } from 'graphql-ws';
import { useServer } from 'graphql-ws/use/ws';
import type { YogaServerInstance } from 'graphql-yoga';
import { WebSocketServer } from 'ws';
import type { App } from '../app-services.ts';
import { apiErrorOf } from '../errors.ts';
import { authenticate, type Principal } from '../modules/auth/service.ts';
import { resourceUrl } from '../modules/oauth/resources.ts';
import type { RequestContext } from '../schema/context.ts';
import type { ServerContext } from './graphql.ts';
import { sessionPrincipalForUpgrade } from './session-auth.ts';

type Extra = {
  principal?: Principal;
  requestId?: string;
};

/**
 * GraphQL over WebSocket (graphql-ws protocol) on /graphql, beside HTTP GraphQL on the same
 * path. The credential travels in connectionParams (`{ authorization: "Bearer svc_..." }`,
 * or the upgrade request's Authorization header) and is checked once, at connection:
 * missing or invalid → close 4401. Execution goes through yoga's envelop (the same
 * plugins, context and scope-auth as HTTP), as the graphql-yoga docs show for graphql-ws.
 */
export function attachGraphQLWs(server: http.Server, app: App, yoga: YogaServerInstance<ServerContext, RequestContext>) {
  const wss = new WebSocketServer({ noServer: true, maxPayload: 1024 * 1024 });
  server.on('upgrade', (req, socket, head) => {
    const path = (req.url ?? '/').split('?')[0];
    if (path !== '/graphql') {
      socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\n\r\n');
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => wss.emit('connection', ws, req));
  });

  const disposable = useServer<Record<string, unknown>, Extra>(
    {
      onConnect: async (ctx) => {
        const params = ctx.connectionParams ?? {};
        const given = params.authorization ?? params.Authorization ?? ctx.extra.request.headers.authorization;
        let principal: Principal | null = null;
        try {
          principal = await authenticate(app.prisma, typeof given === 'string' ? given : null, app.clock.now(), resourceUrl(app.config.publicBaseUrl, 'graphql'), app.principals);
          app.keyUse.record(principal);
          // The dashboard: its session cookie, on an upgrade from our own origin (no CSWSH).
          if (!principal && given === undefined) principal = await sessionPrincipalForUpgrade(app, ctx.extra.request);
        } catch (err) {
          if (!apiErrorOf(err)) throw err;
        }
        if (!principal) {
          ctx.extra.socket.close(CloseCode.Unauthorized, 'Unauthorized: a valid API key is required in connectionParams.authorization');
          return false;
        }
        ctx.extra.principal = principal;
        ctx.extra.requestId = randomUUID();
        return true;
      },
      execute: (args: ExecutionArgs) => (args.rootValue as any).execute(args),
      subscribe: (args: ExecutionArgs) => (args.rootValue as any).subscribe(args),
      onSubscribe: async (ctx, _id, params) => {
        const requestId = ctx.extra.requestId ?? randomUUID();
        const { schema, execute, subscribe, contextFactory, parse, validate } = yoga.getEnveloped({
          app,
          principal: ctx.extra.principal ?? null,
          requestId,
          log: app.log.child({ requestId, transport: 'graphql-ws' }),
          responseHeaders: new Headers(),
          request: new Request('http://localhost/graphql', { headers: { 'x-request-id': requestId } }),
          params,
        } as any);
        const args = {
          schema,
          operationName: params.operationName,
          document: parse(params.query),
          variableValues: params.variables,
          contextValue: await contextFactory(),
          rootValue: { execute, subscribe },
        };
        const errors = validate(args.schema, args.document);
        if (errors.length) return errors;
        return args as ExecutionArgs;
      },
    },
    wss,
  );

  return {
    async close(): Promise<void> {
      for (const client of wss.clients) client.close(1001, 'Server shutting down');
      await disposable.dispose();
      await new Promise<void>((resolve) => wss.close(() => resolve()));
    },
  };
}
