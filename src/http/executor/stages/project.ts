import { restResult } from '../../../schema/rest-projection.ts';
import type { OperationCall } from '../call.ts';

/** A /v1 route's or MCP tool's answer as REST shows it: a list envelope's connection flattened (schema/rest-projection.ts). */
export function project(call: OperationCall): void {
  const { projection } = call.compiled;
  if (projection && call.result) call.result = restResult(projection, call.result, call.variables);
}
