import type { TenantDb } from '../../db/tenant.ts';
import { ID_PREFIX, newId } from '../../db/ids.ts';
import { badRequest, notFound } from '../../errors.ts';
import { EVENT_TYPES } from '../../events/catalog.ts';
import { paginate, type PageArgs } from '../../schema/pagination.ts';
import { MAX_ATTEMPTS } from './backoff.ts';
import { checkWebhookUrl, UrlRefused } from './url-guard.ts';
import { encryptSecret, generateSecret, maskSecret, secretHint } from './secrets.ts';

/** What a webhook call needs: the tenant-scoped db plus the instance's parts. */
export interface WebhookContext {
  db: TenantDb;
  app: { clock: { now(): Date }; config: { webhookAllowPrivate: boolean }; webhookSecretKey: Buffer };
}

/** Subscriptions per account. */
export const MAX_WEBHOOKS_PER_ACCOUNT = 20;
/** Delivery log page size (README: Webhooks). */
export const DELIVERY_PAGE_LIMITS = { max: 100, fallback: 20 };
const DESCRIPTION_MAX = 500;

export interface WebhookView {
  id: string;
  url: string;
  events: string[];
  description: string;
  isActive: boolean;
  secret: string;
  createdAt: Date;
  updatedAt: Date;
}

type Row = { id: string; url: string; events: string[]; description: string; isActive: boolean; secretHint: string; createdAt: Date; updatedAt: Date };

function view(row: Row, fullSecret?: string): WebhookView {
  return {
    id: row.id,
    url: row.url,
    events: row.events,
    description: row.description,
    isActive: row.isActive,
    secret: fullSecret ?? maskSecret(row.secretHint),
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}

async function find(db: TenantDb, id: string): Promise<Row & { secretEnc: string }> {
  const row = await db.webhook.findFirst({ where: { id } });
  if (!row) throw notFound('Webhook');
  return row;
}

/** Longest `events` list accepted (the catalogue has 14 kinds; repeats are folded). */
export const MAX_EVENTS = 50;

/** Event kinds: a non-empty list of catalogue kinds, or the single value `*`. */
export function parseEvents(input: unknown): string[] {
  if (!Array.isArray(input) || input.length === 0 || input.some((e) => typeof e !== 'string')) {
    throw badRequest('events must be a non-empty array of event kinds, or ["*"].', 'events');
  }
  if (input.length > MAX_EVENTS) throw badRequest(`events must list at most ${MAX_EVENTS} kinds.`, 'events');
  const events = [...new Set(input as string[])];
  if (events.includes('*')) {
    if (events.length > 1) throw badRequest('events: "*" subscribes to all kinds and must be the only value.', 'events');
    return events;
  }
  const unknown = events.filter((e) => !Object.hasOwn(EVENT_TYPES, e));
  if (unknown.length) throw badRequest(`events has unknown kind(s): ${unknown.join(', ')}. Known: ${Object.keys(EVENT_TYPES).join(', ')}, or "*".`, 'events');
  return events;
}

async function parseUrl(input: unknown, allowPrivate: boolean): Promise<string> {
  if (typeof input !== 'string' || !input.trim()) throw badRequest('url is required.', 'url');
  try {
    return (await checkWebhookUrl(input.trim(), allowPrivate)).href;
  } catch (err) {
    if (err instanceof UrlRefused) throw badRequest(err.message, 'url');
    throw err;
  }
}

function parseDescription(input: unknown): string {
  if (input === undefined || input === null) return '';
  if (typeof input !== 'string' || input.length > DESCRIPTION_MAX) throw badRequest(`description must be a string of at most ${DESCRIPTION_MAX} characters.`, 'description');
  return input;
}

export async function listWebhooks(db: TenantDb, args: PageArgs) {
  const page = await paginate(args, (q) => db.webhook.findMany(q));
  return { ...page, data: page.data.map((r) => view(r)) };
}

export async function getWebhook(db: TenantDb, id: string): Promise<WebhookView> {
  return view(await find(db, id));
}

export async function createWebhook(ctx: WebhookContext, input: { url: unknown; events: unknown; description?: unknown }): Promise<WebhookView> {
  const url = await parseUrl(input.url, ctx.app.config.webhookAllowPrivate);
  const events = parseEvents(input.events);
  const description = parseDescription(input.description);
  const now = ctx.app.clock.now();
  const id = newId(ID_PREFIX.webhook, now.getTime());
  const secret = generateSecret();
  return ctx.db.$transaction(async (tx) => {
    if ((await tx.webhook.count()) >= MAX_WEBHOOKS_PER_ACCOUNT) {
      throw badRequest(`An account can have at most ${MAX_WEBHOOKS_PER_ACCOUNT} webhook subscriptions; delete one first.`);
    }
    const row = await tx.webhook.create({
      data: { id, url, events, description, isActive: true, secretEnc: encryptSecret(ctx.app.webhookSecretKey, id, secret), secretHint: secretHint(secret), createdAt: now, updatedAt: now } as any,
    });
    return view(row, secret);
  });
}

export async function updateWebhook(
  ctx: WebhookContext,
  id: string,
  patch: { url?: unknown; events?: unknown; description?: unknown; isActive?: unknown },
): Promise<WebhookView> {
  const data: { url?: string; events?: string[]; description?: string; isActive?: boolean } = {};
  if (patch.url !== undefined && patch.url !== null) data.url = await parseUrl(patch.url, ctx.app.config.webhookAllowPrivate);
  if (patch.events !== undefined && patch.events !== null) data.events = parseEvents(patch.events);
  if (patch.description !== undefined && patch.description !== null) data.description = parseDescription(patch.description);
  if (patch.isActive !== undefined && patch.isActive !== null) {
    if (typeof patch.isActive !== 'boolean') throw badRequest('isActive must be a boolean.', 'isActive');
    data.isActive = patch.isActive;
  }
  await find(ctx.db, id);
  const row = await ctx.db.webhook.update({ where: { id }, data });
  return view(row);
}

export async function deleteWebhook(db: TenantDb, id: string): Promise<{ id: string; deleted: true }> {
  await find(db, id);
  // Its queued deliveries and the delivery log go with it (ON DELETE CASCADE).
  await db.webhook.delete({ where: { id } });
  return { id, deleted: true };
}

/** A new secret, effective at once: every delivery signed from now on uses it, the old one verifies nothing. */
export async function rotateSecret(ctx: WebhookContext, id: string): Promise<WebhookView> {
  await find(ctx.db, id);
  const secret = generateSecret();
  const row = await ctx.db.webhook.update({ where: { id }, data: { secretEnc: encryptSecret(ctx.app.webhookSecretKey, id, secret), secretHint: secretHint(secret) } });
  return view(row, secret);
}

const DELIVERY_SELECT = {
  id: true,
  webhookId: true,
  eventId: true,
  eventType: true,
  status: true,
  attemptCount: true,
  maxAttempts: true,
  nextAttemptAt: true,
  lastStatusCode: true,
  lastError: true,
  lastAttemptAt: true,
  createdAt: true,
  attempts: { orderBy: { number: 'asc' as const }, select: { number: true, startedAt: true, durationMs: true, statusCode: true, error: true, succeeded: true, manual: true } },
};

/** The delivery log of a subscription, newest first. */
/** The delivery log, newest first (delivery ids carry their creation time). */
export async function listDeliveries(db: TenantDb, webhookId: string, args: PageArgs) {
  await find(db, webhookId);
  return paginate(args, (q) => db.webhookDelivery.findMany({ ...q, where: { ...q.where, webhookId }, select: DELIVERY_SELECT }), DELIVERY_PAGE_LIMITS);
}

/**
 * Queues one more attempt of a past delivery, now (same delivery id, same event, same body,
 * signed with the current secret). On a subscription that is paused it waits for the resume.
 */
export async function redeliver(ctx: WebhookContext, webhookId: string, deliveryId: string) {
  const now = ctx.app.clock.now();
  return ctx.db.$transaction(async (tx) => {
    const d = await tx.webhookDelivery.findFirst({ where: { id: deliveryId, webhookId }, select: { id: true, status: true, attemptCount: true } });
    if (!d) throw notFound('Delivery');
    await tx.webhookDelivery.update({
      where: { id: d.id },
      // A finished delivery gets exactly one more attempt; a pending one keeps its remaining retries and is tried now.
      data: { status: 'pending', nextAttemptAt: now, manualPending: true, ...(d.status === 'pending' ? {} : { maxAttempts: d.attemptCount + 1 }) },
    });
    return tx.webhookDelivery.findFirstOrThrow({ where: { id: d.id }, select: DELIVERY_SELECT });
  });
}

export { MAX_ATTEMPTS };

// The graph's batched reads.

export async function webhooksByIds(db: TenantDb, ids: readonly (string | number)[]) {
  return (await db.webhook.findMany({ where: { id: { in: ids.map(String) } } })).map((r) => view(r));
}

export function deliveriesByIds(db: TenantDb, ids: readonly string[]) {
  return db.webhookDelivery.findMany({ where: { id: { in: [...ids] } }, select: DELIVERY_SELECT });
}

/** The delivery logs of several subscriptions in one statement, newest first. */
export function deliveriesOfWebhooks(db: TenantDb, webhookIds: readonly string[], after?: string | null) {
  return db.webhookDelivery.findMany({ where: { webhookId: { in: [...webhookIds] }, ...(after ? { id: { lt: after } } : {}) }, orderBy: { id: 'desc' }, select: DELIVERY_SELECT });
}
