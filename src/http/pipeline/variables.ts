import { badRequest } from '../../errors.ts';
import { restVariables } from '../rest/rest-variables.ts';
import type { Exchange } from './exchange.ts';

/**
 * Stage 8, variables: what the execution is given. A /v1 operation's query parameters and body
 * fields must be its arguments (an unknown one is a 400 naming it), and its variables are built
 * once from path, query and body, strictly (rest/rest-variables.ts). The operator API takes a JSON
 * object body. GraphQL's variables are its document's, coerced by GraphQL itself; MCP's are
 * each tool call's.
 */
export function variables(x: Exchange): void {
  const route = x.route;
  if (route?.kind === 'admin') {
    const given = x.body ?? {};
    if (typeof given !== 'object' || given === null || Array.isArray(given))
      throw badRequest('The request body must be a JSON object.');
    x.variables = given as Record<string, unknown>;
    return;
  }
  if (route?.kind !== 'operation') return;
  const { operation, params } = route;
  const known = operation.argumentNames;
  for (const name of x.url.searchParams.keys()) {
    if (!known.has(name)) throw badRequest(`Unknown query parameter "${name}".`, name);
  }
  const body = x.body;
  if (body !== undefined) {
    if (typeof body !== 'object' || body === null || Array.isArray(body))
      throw badRequest('The request body must be a JSON object.');
    for (const name of Object.keys(body)) {
      if (!known.has(name)) throw badRequest(`Unknown body field "${name}".`, name);
    }
  }
  x.variables = restVariables(operation, params, x.url.searchParams, body as Record<string, unknown> | undefined);
}
