import type { ExecutionResult } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { ServerContext, YogaServer } from './graphql.ts';

type ResultProcessor = Parameters<Parameters<NonNullable<Plugin['onResultProcess']>>[0]['setResultProcessor']>[0];

/** The parts of yoga's server that YogaServer.handle runs, reachable through the adapter yoga returns. */
interface YogaParts {
  parseRequest(request: Request, context: object): PromiseLike<{ response?: Response; requestParserResult?: unknown }> | { response?: Response; requestParserResult?: unknown };
  getResultForParams(payload: { params: unknown; request: Request }, context: object): PromiseLike<ExecutionResult> | ExecutionResult;
  onExecutionResultHooks: unknown[];
  onResultProcessHooks: ((payload: {
    request: Request;
    result: unknown;
    acceptableMediaTypes: string[];
    setResult(result: unknown): void;
    resultProcessor?: ResultProcessor;
    setResultProcessor(processor: ResultProcessor, mediaType: string): void;
    serverContext: object;
  }) => unknown)[];
}

/**
 * A request to /graphql, handled as yoga's own `handle` does — its request parsers and parameter
 * checks (method, content type, body size, batching), the parameter hooks, envelop (parse and
 * validation caches, the limits, scope-auth, masking) and its result processors (content
 * negotiation, status) — without the Fetch server adapter around it (`yoga.handleRequest`). The
 * adapter copies the server context into a new object per request, keeps waitUntil bookkeeping
 * and runs onRequest/onResponse hooks, which no plugin here uses on /graphql; it was a large
 * share of a GraphQL read's fixed cost (bench/README.md: Read path). REST reaches envelop without it too,
 * through sofa.
 *
 * Where yoga's handle would catch a thrown error (the request parsers' and parameter hooks'
 * refusals, before anything executes), the request goes to `yoga.handleRequest` whole, so the
 * answer is yoga's own. That needs the request's body unread: it comes parsed in the context
 * (plugins/parsed-body.ts), as api.ts hands every body over. `test/graph/graphql-handle.test.ts`
 * holds the two equal.
 */
export function graphqlHandler(yoga: YogaServer) {
  const parts = yoga as unknown as YogaParts;
  // A thrown error may come only from before execution (handleParams turns execution errors into
  // a result), unless a plugin adds onExecutionResult hooks: then every request takes yoga's path.
  const direct = parts.onExecutionResultHooks.length === 0;
  return async function handleGraphQL(request: Request, context: ServerContext): Promise<Response> {
    if (!direct) return yoga.handleRequest(request, context);
    let result: ExecutionResult;
    try {
      const parsed = await parts.parseRequest(request, context);
      if (parsed.response) return parsed.response;
      result = await parts.getResultForParams({ params: parsed.requestParserResult, request }, context);
    } catch {
      return yoga.handleRequest(request, context);
    }
    return processResult(yoga, parts, request, result, context);
  };
}

/** yoga's processResult (not exported): the result processor the request accepts, or 406. */
async function processResult(yoga: YogaServer, parts: YogaParts, request: Request, result: unknown, serverContext: object): Promise<Response> {
  let processor: ResultProcessor | undefined;
  let mediaType = '*/*';
  const acceptableMediaTypes: string[] = [];
  for (const hook of parts.onResultProcessHooks) {
    await hook({
      request,
      result,
      acceptableMediaTypes,
      setResult(next) {
        result = next;
      },
      resultProcessor: processor,
      setResultProcessor(next, type) {
        processor = next;
        mediaType = type;
      },
      serverContext,
    });
  }
  if (!processor) {
    return new yoga.fetchAPI.Response(null, { status: 406, statusText: 'Not Acceptable', headers: { accept: acceptableMediaTypes.join('; charset=utf-8, ') } });
  }
  return processor(result as ExecutionResult, yoga.fetchAPI, mediaType);
}
