import { operationsOf, type OperationDeclaration } from '../../schema/operation.ts';
import { hostingArea } from './manifest.ts';

const op = operationsOf(hostingArea);

/**
 * Every control-panel operation: scope hosting:manage, area hosting. A change (any method but
 * GET) fires `hosting.panel.changed` unless its meta says otherwise (a browser-SSH session).
 */
export const panel = (
  rest: OperationDeclaration['rest'],
  meta: Pick<OperationDeclaration, 'summary' | 'description'> & Partial<OperationDeclaration>,
) =>
  op({
    scope: 'hosting:manage',
    rest,
    ...(rest.startsWith('GET ') ? {} : { fires: ['hosting.panel.changed'] }),
    ...meta,
  });

/** What a service function resolves to: the shape its GraphQL object type exposes. */
export type Out<F extends (...args: never) => unknown> = Awaited<ReturnType<F>>;
