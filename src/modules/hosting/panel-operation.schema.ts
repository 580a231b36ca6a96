import { operation, type OperationMeta } from '../../schema/operation.ts';

/**
 * Every control-panel operation: scope hosting:manage, area hosting. A change (any method but
 * GET) fires `hosting.panel.changed` unless its meta says otherwise (a browser-SSH session).
 */
export const panel = (
  rest: OperationMeta['rest'],
  tool: string,
  meta: Pick<OperationMeta, 'summary' | 'description'> & Partial<OperationMeta>,
) =>
  operation({
    scope: 'hosting:manage',
    rest,
    area: 'hosting',
    tool,
    ...(rest.startsWith('GET ') ? {} : { fires: ['hosting.panel.changed'] }),
    ...meta,
  });

/** What a service function resolves to: the shape its GraphQL object type exposes. */
export type Out<F extends (...args: never) => unknown> = Awaited<ReturnType<F>>;
