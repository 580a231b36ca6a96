import type { GraphQLSchema } from 'graphql';
import type { BinaryRoute } from '../../schema/binary-operation.ts';
import { listOperations, type Operation } from '../../schema/operation.ts';
import { restView } from '../../schema/rest-view.ts';
import { binaryRoutes } from './binary-routes.ts';
import { Router } from '../request/router.ts';

/** A /v1 route: a schema operation (its sofa-generated document, run by the one executor: src/http/executor/) or a binary stream. */
export type V1Route = { method: string; path: string } & (
  | { operation: Operation; binary?: undefined }
  | { binary: BinaryRoute; operation?: undefined }
);

/**
 * The /v1 route table, from the same metadata sofa serves and the modules' binary routes: one
 * match per request decides 404, 405 (with Allow), a binary stream, or the operation whose
 * arguments the request must carry (in REST's names: the operations of the REST schema).
 */
export function v1Router(schema: GraphQLSchema): Router<V1Route> {
  return new Router<V1Route>(
    [
      ...listOperations(restView(schema)).map((operation) => ({
        method: operation.method,
        path: operation.path,
        operation,
      })),
      ...binaryRoutes().map((binary) => ({ method: binary.method, path: binary.path, binary })),
    ],
    '/v1',
  );
}
