import { OAuthError } from './errors.ts';

/**
 * RFC 8707 resource indicators: the protected resources this server issues tokens for. A token
 * asked for with `resource` is bound to it and accepted only there; a token asked for without
 * one (the device flow, `svc login`) is accepted on every surface.
 */
export const RESOURCE_PATHS = { mcp: '/mcp', rest: '/v1', graphql: '/graphql' } as const;
export type ResourceSurface = keyof typeof RESOURCE_PATHS;

export function resourceUrl(baseUrl: string, surface: ResourceSurface): string {
  return `${baseUrl}${RESOURCE_PATHS[surface]}`;
}

/** The `resource` parameter: undefined when absent, else one of ours exactly, else invalid_target. */
export function parseResource(value: string | undefined, baseUrl: string): string | undefined {
  if (value === undefined) return undefined;
  const known = Object.keys(RESOURCE_PATHS).map((s) => resourceUrl(baseUrl, s as ResourceSurface));
  if (!known.includes(value))
    throw new OAuthError('invalid_target', `Unknown resource; this server issues tokens for ${known.join(', ')}.`);
  return value;
}
