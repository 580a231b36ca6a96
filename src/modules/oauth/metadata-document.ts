import type { PrismaClient } from '../../generated/prisma/client.ts';
import { getDocument } from '../../egress/http.ts';
import { type EgressRefused, parseHttpUrl } from '../../egress/policy.ts';
import { validateClientMetadata, type ClientMetadata } from './client-metadata.ts';
import { OAuthError } from './errors.ts';

/**
 * Client ID metadata documents (draft-ietf-oauth-client-id-metadata-document, MCP 2025-11-25):
 * the client_id is an https URL serving the client's metadata as JSON. It is fetched through
 * the egress policy (src/egress) (public addresses only unless WEBHOOK_ALLOW_PRIVATE=1, no
 * redirects, a deadline, a size cap) and kept as a client row until its cache time ends.
 */

export interface DocumentPolicy {
  allowPrivate: boolean;
  timeoutMs: number;
  /**
   * Runs the fetch of a document, never for a cached one, under the caller's limits: throws to
   * refuse it, else returns what `fetch` returns.
   */
  aroundFetch?: <T>(fetch: () => Promise<T>) => Promise<T>;
}

/** Largest document accepted. */
const METADATA_DOCUMENT_MAX_BYTES = 8 * 1024;
/** Longest wait for a document, whatever WEBHOOK_TIMEOUT_MS says. */
const METADATA_DOCUMENT_TIMEOUT_MS = 5000;
/** Cache time bounds (seconds) applied to the document's Cache-Control max-age; the default when it has none. */
const METADATA_CACHE_SECONDS = { min: 60, max: 86_400, default: 3600 } as const;

export function isMetadataDocumentId(clientId: string, policy: DocumentPolicy): boolean {
  return clientId.startsWith('https://') || (policy.allowPrivate && clientId.startsWith('http://'));
}

function refused(clientId: string, why: string): OAuthError {
  return new OAuthError('invalid_client', `The client metadata document at ${clientId.slice(0, 200)} ${why}`, 401);
}

/** max-age within the bounds; no-store and no-cache count as the minimum. */
function cacheSeconds(cacheControl: string | undefined): number {
  const value = (cacheControl ?? '').toLowerCase();
  if (/\bno-store\b|\bno-cache\b/.test(value)) return METADATA_CACHE_SECONDS.min;
  const maxAge = /\bmax-age=(\d+)/.exec(value);
  const seconds = maxAge ? Number(maxAge[1]) : METADATA_CACHE_SECONDS.default;
  return Math.min(METADATA_CACHE_SECONDS.max, Math.max(METADATA_CACHE_SECONDS.min, seconds));
}

export async function fetchMetadataDocumentClient(
  prisma: PrismaClient,
  clientId: string,
  now: Date,
  policy: DocumentPolicy,
) {
  let url: URL;
  try {
    url = parseHttpUrl(clientId, policy.allowPrivate);
  } catch (err) {
    throw refused(clientId, `cannot be used: ${(err as EgressRefused).message}`);
  }
  if (url.pathname === '/' || url.href !== clientId)
    throw refused(clientId, 'cannot be used: the client_id must be a normalised URL with a path.');
  const cached = await prisma.oAuthClient.findUnique({ where: { id: clientId } });
  if (cached?.kind === 'metadata_document' && cached.metadataExpiresAt && cached.metadataExpiresAt > now) return cached;

  const fetchDocument = () =>
    getDocument(
      clientId,
      { Accept: 'application/json' },
      {
        allowPrivate: policy.allowPrivate,
        timeoutMs: Math.min(policy.timeoutMs, METADATA_DOCUMENT_TIMEOUT_MS),
        maxBytes: METADATA_DOCUMENT_MAX_BYTES,
      },
    );
  const answer = await (policy.aroundFetch ? policy.aroundFetch(fetchDocument) : fetchDocument());
  if (answer.error || !answer.body) throw refused(clientId, `could not be fetched: ${answer.error ?? 'no body'}.`);
  if (answer.statusCode !== 200) throw refused(clientId, `answered HTTP ${answer.statusCode}.`);
  let doc: unknown;
  try {
    doc = JSON.parse(answer.body.toString('utf8'));
  } catch {
    throw refused(clientId, 'is not JSON.');
  }
  if (typeof doc !== 'object' || doc === null || (doc as Record<string, unknown>).client_id !== clientId)
    throw refused(clientId, 'must name itself as its client_id.');
  if ('client_secret' in doc) throw refused(clientId, 'must not carry a client_secret.');
  let meta: ClientMetadata;
  try {
    meta = validateClientMetadata(doc);
  } catch (err) {
    throw refused(clientId, `is invalid: ${(err as OAuthError).description}`);
  }
  const expiresAt = new Date(now.getTime() + cacheSeconds(answer.headers['cache-control']) * 1000);
  const data = {
    name: meta.name,
    kind: 'metadata_document',
    redirectUris: meta.redirectUris,
    grantTypes: meta.grantTypes,
    metadataExpiresAt: expiresAt,
  };
  return prisma.oAuthClient.upsert({
    where: { id: clientId },
    create: { id: clientId, ...data, createdAt: now },
    update: data,
  });
}
