import type { GraphQLSchema } from 'graphql';
import packageJson from '../../../package.json' with { type: 'json' };
import { MAX_ATTEMPTS, retrySchedule } from '../../modules/webhooks/backoff.ts';
import { DELIVERY_PAGE_LIMITS } from '../../modules/webhooks/service.ts';
import { PAGE_DEFAULT, PAGE_MAX } from '../../core/paging.ts';
import { AREAS } from '../../modules/areas.ts';
import { listOperations, RATE_LIMIT_CLASSES, type Area } from '../../schema/operation.ts';
import { OPT_IN_SCOPES, SCOPES, type Scope } from '../../scopes.ts';
import { IDEMPOTENCY_WINDOW_MS } from '../../modules/auth/idempotency.ts';
import { REQUESTS_PER_MINUTE } from '../admission/rate-limit.ts';

/**
 * What the OpenAPI document says once, for every operation: its `info.description` (the
 * conventions: authentication, scopes, rate limits, idempotency, errors, pagination, webhook
 * signatures) and its tags (one per area, with what the area covers). Figures come from the
 * constants the code enforces, so the text cannot drift from the behaviour. docs/REFERENCE.md
 * has the full detail.
 */

/** The tags of the document, one per area in the order a reader meets the API (src/modules/areas.ts), described by its manifest. */
export const AREA_TAGS: readonly { name: Area; description: string }[] = AREAS.flatMap((a) =>
  'api' in a ? [{ name: a.name as Area, description: a.api.tag }] : [],
);

const hours = (ms: number) => ms / 3_600_000;

/** `info.description`: the conventions every operation shares, in Markdown. */
export function apiGuide(schema: GraphQLSchema): string {
  const classes = [...new Set(listOperations(schema).flatMap((op) => (op.meta.rateLimit ? [op.meta.rateLimit] : [])))];
  const retryHours = retrySchedule().reduce((sum, seconds) => sum + seconds, 0) / 3600;
  const scopeRows = (Object.entries(SCOPES) as [Scope, string][])
    .map(
      ([scope, covers]) =>
        `| \`${scope}\` | ${covers.replace(/ \(opt-in\)$/, '')} | ${OPT_IN_SCOPES.includes(scope) ? 'opt-in' : 'yes'} |`,
    )
    .join('\n');

  return `Servers, capacity pools, web hosting, email hosting, domains, billing, support tickets and webhooks of one customer account. The same operations are served as GraphQL at \`/graphql\` (GraphiQL when opened in a browser; subscriptions over graphql-ws) and as MCP tools at \`/mcp\`; this document is generated from that one schema.

## Authentication

Every operation takes a credential in the \`Authorization\` header: \`Authorization: Bearer <credential>\`.

- **API keys** (\`svc_\` and 40 characters) carry the scopes they were minted with and an optional expiry. The account holder mints and revokes them in the dashboard; a key is shown once.
- **OAuth 2.0 access tokens** (\`svc_at_…\`) carry exactly the scopes the user granted: the device flow for command-line tools (client \`svc-cli\`) and the authorization code flow with PKCE for MCP hosts and other applications, both described at \`/.well-known/oauth-authorization-server\`. Refresh tokens (\`svc_rt_…\`) only refresh: they never authenticate a call. A token asked for with a \`resource\` works only on that surface (\`/v1\`, \`/graphql\` or \`/mcp\`).

A credential that is missing, malformed, unknown, revoked or expired gets a \`401\` with \`WWW-Authenticate: Bearer\`. This document itself needs none.

## Scopes

Each operation needs one scope (its \`security\` requirement, also given as \`x-scope\`); a credential without it gets a \`403\` naming the scope. A key minted without a scope list gets every scope but the opt-in ones (${OPT_IN_SCOPES.map((s) => `\`${s}\``).join(', ')}), which destroy data, open a shell or spend money and are granted only by name.

| Scope | Covers | By default |
|---|---|---|
${scopeRows}

## Rate limits

${REQUESTS_PER_MINUTE} requests per minute per credential, in a fixed one-minute window shared by REST and GraphQL; requests without a valid credential count per client address. Every response says where the window stands:

| Header | Meaning |
|---|---|
| \`X-RateLimit-Limit\` | Requests allowed in the window |
| \`X-RateLimit-Remaining\` | Requests left in it |
| \`X-RateLimit-Reset\` | When it resets, in Unix time (seconds) |

Over the limit the answer is \`429\` with \`Retry-After\` (seconds).${classes.length ? ` Some operations have a limit of their own on top, and their headers describe it: ${classes.map((c) => RATE_LIMIT_CLASSES[c].description).join('; ')}.` : ''}

## Idempotency

Every \`POST\` honours an \`Idempotency-Key\` header (1 to 255 visible ASCII characters), listed among its parameters. A key is remembered per account for ${hours(IDEMPOTENCY_WINDOW_MS)} hours: a retry with the same key and the same parameters answers the first response's status and body without running again, with \`Idempotent-Replayed: true\`; the same key with other parameters is a \`422\`, and while the first request still runs a \`409\`. A run's refusals (a \`404\`, a \`409\`) are remembered like its successes; a \`5xx\` is not, so its retry runs again; a request refused before it runs (an invalid parameter) leaves nothing, so the corrected retry runs. Other methods ignore the header: \`PUT\` and \`DELETE\` are idempotent by nature and reads change nothing.

## Errors

Every error is one JSON object, the \`Error\` schema:

\`\`\`json
{ "statusCode": 400, "message": "action must be one of reboot, start, stop.", "error": "Bad Request", "code": "BAD_REQUEST", "param": "action" }
\`\`\`

\`message\` says what went wrong and what to do, for a person; \`error\` is the HTTP reason phrase; \`code\` the machine-readable kind (\`BAD_REQUEST\`, \`UNAUTHENTICATED\`, \`FORBIDDEN\`, \`NOT_FOUND\`, \`CONFLICT\`, \`UNPROCESSABLE_ENTITY\`, \`RATE_LIMITED\`, \`INTERNAL_SERVER_ERROR\` …, the same as GraphQL's \`extensions.code\`); \`param\`, when a request value is at fault, names it by its path (\`name\`, \`jobs[1].command\`, \`Idempotency-Key\`).

| Status | When |
|---|---|
| 400 | An invalid or missing parameter (the message names it), malformed JSON, an unknown parameter, or a business rule refused the request |
| 401 | Credential missing, malformed, unknown, revoked or expired |
| 403 | The credential lacks the operation's scope |
| 404 | Unknown route, or a resource that does not exist or belongs to another account (the same answer either way) |
| 405 | A known path with another method (\`Allow\` lists the methods) |
| 409 | The resource's state forbids the action now (a server still provisioning), or an Idempotency-Key still in use |
| 413 | A body over the size limit |
| 415 | A body that is not \`application/json\` |
| 422 | An Idempotency-Key reused with other parameters |
| 429 | Rate limit |
| 500 | Unexpected failure: the body says only \`Internal server error.\` |

Every response carries \`X-Request-Id\` (yours, when you send a valid one): quote it when asking for help. Every response also carries \`API-Version\`.

## Pagination

A list answers one envelope, \`{ "data": [ … ], "hasMore": true, "nextCursor": "srv_01…" }\`, never a bare array. Lists that grow with the account come newest first, by pages: \`limit\` 1 to ${PAGE_MAX} (default ${PAGE_DEFAULT}; the webhook delivery log 1 to ${DELIVERY_PAGE_LIMITS.max}, default ${DELIVERY_PAGE_LIMITS.fallback}), then \`cursor=<nextCursor>\` for the next page, until \`hasMore\` is \`false\` and \`nextCursor\` \`null\`. The cursor is the last item's id; anything else (\`zzz\`, an id of another kind) is a \`400\` naming \`cursor\`, never page one. Lists bounded by nature (a server's snapshots, IPs or add-ons, a hosting account's backups …) come whole, with \`hasMore: false\` and \`nextCursor: null\`, and take no \`limit\` or \`cursor\`. Two exceptions: \`GET /billing/invoices\` pages by number (\`page\`, \`limit\`) as \`{ data, page, limit, total, hasMore }\`, and \`POST /pools/{id}/ips/apply\` answers the pool's addresses as an array. Each list operation shows the parameters it takes.

## Webhooks and their signature

A webhook subscription (\`POST /webhooks\`) has an https URL receive the account's events of the kinds it names. Each event is \`POST\`ed as JSON, in the envelope the GraphQL \`events\` subscription also uses: \`{ "id": "evt_…", "type": "server.power.changed", "created": "<ISO 8601>", "account": "<account id>", "apiVersion": "…", "data": { … } }\`, with these headers:

| Header | Value |
|---|---|
| \`X-Service-Signature\` | \`t=<Unix seconds>,v1=<lowercase hex HMAC-SHA256 of "<t>.<raw body>">\`, keyed with the subscription's secret |
| \`X-Service-Event-Id\`, \`X-Service-Event-Type\` | The event's id and kind |
| \`X-Service-Delivery-Id\` | The same on every attempt and redelivery: drop a repeat by it |
| \`X-Service-Delivery-Attempt\` | 1, 2, … |

The signature is Stripe's scheme: \`stripe.webhooks.constructEvent(rawBody, signatureHeader, secret)\` verifies it unchanged. By hand: compute the HMAC-SHA256 of \`t\`, a dot and the raw body exactly as received, keyed with the secret (\`whsec_…\`, returned in full only when the subscription is created and when its secret is rotated); compare it with \`v1\` in constant time; and refuse a \`t\` far from your clock (Stripe's verifier allows 5 minutes).

A delivery succeeds on any 2xx within the timeout (10 seconds by default); anything else is retried with growing waits, ${MAX_ATTEMPTS} attempts in all over about ${retryHours.toFixed(1)} hours, before the delivery is \`failed\`. Delivery is at least once and unordered.`;
}

/** `info.license`, from package.json's `license` (its one declaration): an SPDX identifier. */
export const LICENSE: { name: string; identifier: string } = {
  name: packageJson.license,
  identifier: packageJson.license,
};
