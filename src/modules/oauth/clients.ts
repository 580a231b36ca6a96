import type { PrismaClient } from '../../generated/prisma/client.ts';
import { ID_PREFIX, newId } from '../../db/ids.ts';
import { DEVICE_CODE_GRANT_TYPE, type ClientMetadata } from './client-metadata.ts';
import { OAuthError } from './errors.ts';
import { fetchMetadataDocumentClient, isMetadataDocumentId, type DocumentPolicy } from './metadata-document.ts';

/**
 * OAuth clients, all public (token_endpoint_auth_method none): the built-in `svc-cli`, clients
 * an operator registers (device flow), clients registered by themselves (RFC 7591 dynamic
 * registration), and clients whose client_id is the https URL of their metadata document.
 */

export { DEVICE_CODE_GRANT_TYPE };
export const BUILT_IN_CLIENTS = [{ id: 'svc-cli', name: 'svc command-line interface' }] as const;

export type { DocumentPolicy };

/**
 * Clients the platform vouches for: the built-in CLI and those an operator registered. Every
 * other client named itself (RFC 7591 or a metadata document): pages show its id and
 * "unverified", and errors are not redirected to it without the person's click.
 */
export function isVerifiedClient(client: { kind: string }): boolean {
  return client.kind === 'builtin' || client.kind === 'operator';
}

/** The device grant (RFC 8628): verified clients, and self-registered ones that listed it in grant_types. */
export function allowsDeviceGrant(client: { kind: string; grantTypes: string[] }): boolean {
  return isVerifiedClient(client) || client.grantTypes.includes(DEVICE_CODE_GRANT_TYPE);
}

/** Created if missing (ON CONFLICT DO NOTHING): instances starting together on a new database each run this. */
export async function ensureBuiltInClients(prisma: PrismaClient): Promise<void> {
  await prisma.oAuthClient.createMany({
    data: BUILT_IN_CLIENTS.map((c) => ({ id: c.id, name: c.name, kind: 'builtin' as const })),
    skipDuplicates: true,
  });
}

/** Operator API: registers a device-flow client. */
export async function registerClient(prisma: PrismaClient, name: unknown, now: Date) {
  if (typeof name !== 'string' || name.trim().length < 1 || name.trim().length > 100) {
    throw new OAuthError('invalid_request', 'name must be 1 to 100 characters.');
  }
  const row = await prisma.oAuthClient.create({
    data: { id: newId(ID_PREFIX.oauthClient, now.getTime()), name: name.trim(), kind: 'operator', createdAt: now },
  });
  return clientView(row);
}

function clientView(c: { id: string; name: string; createdAt: Date }) {
  return {
    client_id: c.id,
    name: c.name,
    token_endpoint_auth_method: 'none',
    grant_types: [DEVICE_CODE_GRANT_TYPE, 'refresh_token'],
    created_at: c.createdAt.toISOString(),
  };
}

/**
 * The client of a request. A client_id that is an https URL (http too when private targets
 * are allowed) is a client ID metadata document, fetched or taken from the cache; it is
 * unknown when no `documents` policy is given.
 */
export async function requireClient(
  prisma: PrismaClient,
  clientId: string | undefined,
  now: Date,
  documents?: DocumentPolicy,
) {
  if (!clientId) throw new OAuthError('invalid_request', 'client_id is required.');
  if (documents && isMetadataDocumentId(clientId, documents))
    return fetchMetadataDocumentClient(prisma, clientId, now, documents);
  if (BUILT_IN_CLIENTS.some((c) => c.id === clientId)) await ensureBuiltInClients(prisma);
  const client = clientId.length <= 64 ? await prisma.oAuthClient.findUnique({ where: { id: clientId } }) : null;
  if (!client || client.kind === 'metadata_document') throw new OAuthError('invalid_client', 'Unknown client_id.', 401);
  return client;
}

/** RFC 7591 dynamic registration of validated metadata (validateClientMetadata): a public client; 201 with its metadata. */
export async function registerDynamicClient(prisma: PrismaClient, meta: ClientMetadata, now: Date) {
  const row = await prisma.oAuthClient.create({
    data: {
      id: newId(ID_PREFIX.oauthClient, now.getTime()),
      name: meta.name,
      kind: 'dynamic',
      redirectUris: meta.redirectUris,
      grantTypes: meta.grantTypes,
      createdAt: now,
    },
  });
  return {
    client_id: row.id,
    client_id_issued_at: Math.floor(now.getTime() / 1000),
    client_name: row.name,
    redirect_uris: row.redirectUris,
    grant_types: row.grantTypes,
    response_types: meta.responseTypes,
    token_endpoint_auth_method: 'none',
    ...(meta.scope ? { scope: meta.scope } : {}),
  };
}
