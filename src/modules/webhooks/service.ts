import type { TenantDb } from '../../db/tenant.ts';
import type { Prisma } from '../../generated/prisma/client.ts';
import { ID_PREFIX, newId } from '../../db/ids.ts';
import { ApiError, badRequest, notFound } from '../../errors.ts';
import { EVENT_TYPES, TEST_EVENT_TYPE, type EventType } from '../../events/catalog.ts';
import { announceChange } from '../../events/live-changes.ts';
import { ALL_SCOPES, type Scope } from '../../scopes.ts';
import { z } from 'zod';
import { paginate, type PageArgs } from '../../core/paging.ts';
import { checkHttpUrl, EgressRefused } from '../../egress/policy.ts';
import { encryptSecret, generateSecret, maskSecret, secretHint } from './secrets.ts';
import { readDeliveryPage } from './delivery-read.ts';

/** What a webhook call needs: the tenant-scoped db plus the instance's parts. */
export interface WebhookContext {
  db: TenantDb;
  /** The caller's credential: what its scopes can read bounds what the subscription is sent. */
  principal: { scopes: ReadonlySet<Scope> } | null;
  app: { clock: { now(): Date }; config: { webhookAllowPrivate: boolean }; webhookSecretKey: Buffer };
}

/** Subscriptions per account. */
const MAX_WEBHOOKS_PER_ACCOUNT = 20;
/** Delivery log page size (docs/REFERENCE.md: Webhooks). */
export const DELIVERY_PAGE_LIMITS = { max: 100, fallback: 20 };
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

type Row = {
  id: string;
  url: string;
  events: string[];
  description: string;
  isActive: boolean;
  secretHint: string;
  createdAt: Date;
  updatedAt: Date;
};

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

/** Longest `events` list accepted (above the catalogue's size, so every kind fits; repeats are folded). */
export const MAX_EVENTS = 50;
const DESCRIPTION_MAX = 500;
const URL_MAX = 2048;

/** The declared rules of the arguments (schema.ts spreads them; checked before a resolver runs). */
export const WEBHOOK_RULES = {
  url: z.string().max(URL_MAX),
  events: z
    .array(z.enum(Object.keys(EVENT_TYPES).concat('*') as [string, ...string[]]))
    .max(MAX_EVENTS)
    .meta({ itemsNoun: 'kinds' }),
  description: z.string().max(DESCRIPTION_MAX),
};

/** Event kinds (each a catalogue kind, by the declared rule): a non-empty list, or the single value `*`. */
function parseEvents(input: string[]): string[] {
  if (input.length === 0) throw badRequest('events must be a non-empty array of event kinds, or ["*"].', 'events');
  const events = [...new Set(input)];
  if (events.includes('*') && events.length > 1)
    throw badRequest('events: "*" subscribes to all kinds and must be the only value.', 'events');
  return events;
}

/**
 * A credential may subscribe only to kinds it can read on /v1 (403 otherwise); `*` is allowed
 * and means "every kind these scopes can read". Returns the scopes to store on the row, which
 * the fan-out (fan-out.ts) filters by.
 */
function ownerScopes(ctx: WebhookContext, events: string[]): Scope[] {
  const scopes = ctx.principal?.scopes ?? new Set<Scope>();
  const unreadable = events.filter((e) => e !== '*' && !scopes.has(EVENT_TYPES[e as EventType].scope));
  if (unreadable.length) {
    const needed = [...new Set(unreadable.map((e) => EVENT_TYPES[e as EventType].scope))];
    throw new ApiError(
      403,
      `This credential cannot read ${unreadable.join(', ')} (needs ${needed.join(', ')}), so it cannot subscribe to ${unreadable.length > 1 ? 'them' : 'it'}.`,
      { field: 'events' },
    );
  }
  return ALL_SCOPES.filter((s) => scopes.has(s));
}

async function parseUrl(input: string, allowPrivate: boolean): Promise<string> {
  if (!input.trim()) throw badRequest('url is required.', 'url');
  try {
    return (await checkHttpUrl(input.trim(), allowPrivate)).href;
  } catch (err) {
    if (err instanceof EgressRefused) throw badRequest(err.message, 'url');
    throw err;
  }
}

export async function listWebhooks(db: TenantDb, args: PageArgs) {
  const page = await paginate(args, ID_PREFIX.webhook, (q) => db.webhook.findMany(q));
  return { ...page, data: page.data.map((r) => view(r)) };
}

export async function getWebhook(db: TenantDb, id: string): Promise<WebhookView> {
  return view(await find(db, id));
}

export async function createWebhook(
  ctx: WebhookContext,
  input: { url: string; events: string[]; description?: string | null },
): Promise<WebhookView> {
  const url = await parseUrl(input.url, ctx.app.config.webhookAllowPrivate);
  const events = parseEvents(input.events);
  const scopes = ownerScopes(ctx, events);
  const description = input.description ?? '';
  const now = ctx.app.clock.now();
  const id = newId(ID_PREFIX.webhook, now.getTime());
  const secret = generateSecret();
  return ctx.db.$transaction(async (tx) => {
    if ((await tx.webhook.count()) >= MAX_WEBHOOKS_PER_ACCOUNT) {
      throw badRequest(
        `An account can have at most ${MAX_WEBHOOKS_PER_ACCOUNT} webhook subscriptions; delete one first.`,
      );
    }
    const row = await tx.webhook.create({
      // accountId: the tenant client sets it.
      data: {
        id,
        url,
        events,
        ownerScopes: scopes,
        description,
        isActive: true,
        secretEnc: encryptSecret(ctx.app.webhookSecretKey, id, secret),
        secretHint: secretHint(secret),
        createdAt: now,
        updatedAt: now,
      } as Prisma.WebhookUncheckedCreateInput,
    });
    return view(row, secret);
  });
}

export async function updateWebhook(
  ctx: WebhookContext,
  id: string,
  patch: { url?: string | null; events?: string[] | null; description?: string | null; isActive?: boolean | null },
): Promise<WebhookView> {
  const data: { url?: string; events?: string[]; ownerScopes?: Scope[]; description?: string; isActive?: boolean } = {};
  if (patch.url != null) data.url = await parseUrl(patch.url, ctx.app.config.webhookAllowPrivate);
  if (patch.events != null) data.events = parseEvents(patch.events);
  if (patch.description != null) data.description = patch.description;
  if (patch.isActive != null) data.isActive = patch.isActive;
  const current = await find(ctx.db, id);
  // Who points the subscription somewhere (URL) or at something (events) answers for what it
  // is sent: the row takes that credential's scopes, so a narrower key cannot redirect a
  // broader key's subscription to itself.
  if (data.url !== undefined || data.events !== undefined)
    data.ownerScopes = ownerScopes(ctx, data.events ?? current.events);
  const row = await ctx.db.webhook.update({ where: { id }, data });
  return view(row);
}

export async function deleteWebhook(db: TenantDb, id: string): Promise<{ id: string; deleted: true }> {
  await find(db, id);
  await db.$transaction(async (tx) => {
    // Its queued deliveries and the delivery log go with it (ON DELETE CASCADE), and the test
    // events sent to it (test-event.ts), which nothing else reads.
    await tx.event.deleteMany({ where: { type: TEST_EVENT_TYPE, data: { path: ['webhookId'], equals: id } } });
    await tx.webhook.delete({ where: { id } });
  });
  return { id, deleted: true };
}

/** A new secret, effective at once: every delivery signed from now on uses it, the old one verifies nothing. */
export async function rotateSecret(ctx: WebhookContext, id: string): Promise<WebhookView> {
  await find(ctx.db, id);
  const secret = generateSecret();
  const row = await ctx.db.webhook.update({
    where: { id },
    data: { secretEnc: encryptSecret(ctx.app.webhookSecretKey, id, secret), secretHint: secretHint(secret) },
  });
  return view(row, secret);
}

export const DELIVERY_SELECT = {
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
  attempts: {
    orderBy: { number: 'asc' as const },
    select: {
      number: true,
      startedAt: true,
      durationMs: true,
      statusCode: true,
      error: true,
      succeeded: true,
      manual: true,
    },
  },
};

/** The delivery log of a subscription, newest first (delivery ids carry their creation time); one statement. */
export function listDeliveries(db: TenantDb, webhookId: string, args: PageArgs) {
  return paginate(
    args,
    ID_PREFIX.webhookDelivery,
    async (q) => {
      const rows = await readDeliveryPage(db, webhookId, q.where.id?.lt ?? null, q.take);
      if (!rows) throw notFound('Webhook');
      return rows;
    },
    DELIVERY_PAGE_LIMITS,
  );
}

/**
 * Queues one more attempt of a past delivery, now (same delivery id, same event, same body,
 * signed with the current secret). On a subscription that is paused it waits for the resume.
 */
export async function redeliver(ctx: WebhookContext, webhookId: string, deliveryId: string) {
  const now = ctx.app.clock.now();
  return ctx.db.$transaction(async (tx) => {
    const d = await tx.webhookDelivery.findFirst({
      where: { id: deliveryId, webhookId },
      select: { id: true, accountId: true, status: true, attemptCount: true },
    });
    if (!d) throw notFound('Delivery');
    await tx.webhookDelivery.update({
      where: { id: d.id },
      // A finished delivery gets exactly one more attempt; a pending one keeps its remaining retries and is tried now.
      data: {
        status: 'pending',
        nextAttemptAt: now,
        manualPending: true,
        ...(d.status === 'pending' ? {} : { maxAttempts: d.attemptCount + 1 }),
      },
    });
    const change = { webhookId, deliveryId: d.id, status: 'pending', attemptCount: d.attemptCount };
    await announceChange(tx, d.accountId, 'webhook.delivery.changed', change, now);
    return tx.webhookDelivery.findFirstOrThrow({ where: { id: d.id }, select: DELIVERY_SELECT });
  });
}

// The graph's batched reads.

export async function webhooksByIds(db: TenantDb, ids: readonly (string | number)[]) {
  return (await db.webhook.findMany({ where: { id: { in: ids.map(String) } } })).map((r) => view(r));
}

export function deliveriesByIds(db: TenantDb, ids: readonly string[]) {
  return db.webhookDelivery.findMany({ where: { id: { in: [...ids] } }, select: DELIVERY_SELECT });
}

/** The delivery logs of several subscriptions in one statement, newest first. */
export function deliveriesOfWebhooks(db: TenantDb, webhookIds: readonly string[], after?: string | null) {
  return db.webhookDelivery.findMany({
    where: { webhookId: { in: [...webhookIds] }, ...(after ? { id: { lt: after } } : {}) },
    orderBy: { id: 'desc' },
    select: DELIVERY_SELECT,
  });
}
