import type { PrismaClient } from '../../generated/prisma/client.ts';
import { accountPage } from '../../db/account-page.ts';
import type { TenantDb } from '../../db/tenant.ts';
import { ID_PREFIX, newId } from '../../db/ids.ts';
import type { Tx } from '../../db/tx.ts';
import { badRequest, notFound } from '../../errors.ts';
import { recordEvent } from '../../events/outbox.ts';
import { z } from 'zod';
import { checkInput } from '../../core/input-schemas.ts';
import { paginate, type PageArgs } from '../../core/paging.ts';
import { nextCounter } from '../billing/invoices.ts';
import { readTicketWithThread } from './ticket-read.ts';

/**
 * Support tickets (docs/REFERENCE.md: Support tickets). States: `open` (waiting on support) →
 * `answered` (staff replied, waiting on the customer) → `open` again on a customer reply;
 * `closed` by the customer, after which nobody can reply (400).
 */
export const DEPARTMENTS = ['general', 'technical', 'billing', 'sales', 'abuse'] as const;
export const PRIORITIES = ['low', 'normal', 'high', 'urgent'] as const;
export const TICKET_STATES = ['open', 'answered', 'closed'] as const;
export const MESSAGE_AUTHORS = ['customer', 'staff'] as const;
export const SUBJECT_MAX = 200;
export const MESSAGE_MAX = 20_000;
export const SUBJECT_RULES = z.string().trim().min(1).max(SUBJECT_MAX);
export const MESSAGE_RULES = z.string().trim().min(1).max(MESSAGE_MAX);
/** Ticket numbers start here: TKT-100001. */
const NUMBER_BASE = 100_000;

export interface TicketContext {
  db: TenantDb;
  principal: { accountId: string } | null;
  app: { clock: { now(): Date } };
}

type TicketRow = NonNullable<Awaited<ReturnType<Tx['ticket']['findFirst']>>>;
type MessageRow = { id: string; author: string; body: string; createdAt: Date };

function ticketView(t: TicketRow) {
  return {
    id: t.id,
    number: t.number,
    subject: t.subject,
    department: t.department,
    priority: t.priority,
    status: t.status,
    lastReplyAt: t.lastReplyAt,
    closedAt: t.closedAt,
    createdAt: t.createdAt,
  };
}
export type TicketView = ReturnType<typeof ticketView>;
export type TicketDetail = TicketView & { messages: { id: string; author: string; body: string; createdAt: Date }[] };

function detail(t: TicketRow & { messages: MessageRow[] }): TicketDetail {
  return {
    ...ticketView(t),
    messages: t.messages.map((m) => ({ id: m.id, author: m.author, body: m.body, createdAt: m.createdAt })),
  };
}

/** The thread as the ticket's reads include it, oldest first (ticket-read.ts reads the same). */
export const MESSAGES = { messages: { orderBy: { id: 'asc' as const } } };

function oneOf<T extends string>(input: unknown, field: string, values: readonly T[], fallback: T): T {
  if (input === undefined || input === null) return fallback;
  if (typeof input !== 'string' || !(values as readonly string[]).includes(input))
    throw badRequest(`${field} must be one of ${values.join(', ')}.`, field);
  return input as T;
}

/** The account's tickets, newest first, as one statement (db/account-page.ts). */
export const ticketPage = accountPage<TicketRow>('Ticket');

export async function listTickets(db: TenantDb, args: PageArgs) {
  const page = await paginate(args, ID_PREFIX.ticket, (q) => ticketPage(db, q));
  return { ...page, data: page.data.map(ticketView) };
}

async function find(db: TenantDb | Tx, id: string) {
  const ticket = await db.ticket.findFirst({ where: { id }, include: MESSAGES });
  if (!ticket) throw notFound('Ticket');
  return ticket;
}

/** GET /tickets/:id: one statement (ticket-read.ts). */
export async function getTicket(db: TenantDb, id: string) {
  const ticket = await readTicketWithThread(db, id);
  if (!ticket) throw notFound('Ticket');
  return detail(ticket);
}

/** Opens a ticket with its first message; `ticket.created`. */
export async function createTicket(
  ctx: TicketContext,
  input: { subject: string; message: string; department?: string | null; priority?: string | null },
) {
  const subject = input.subject.trim();
  const message = input.message.trim();
  const department = oneOf(input.department, 'department', DEPARTMENTS, 'general');
  const priority = oneOf(input.priority, 'priority', PRIORITIES, 'normal');
  const now = ctx.app.clock.now();
  const accountId = ctx.principal!.accountId;
  return ctx.db.$transaction(async (tx) => {
    const id = newId(ID_PREFIX.ticket, now.getTime());
    const number = `TKT-${NUMBER_BASE + (await nextCounter(tx, 'ticket'))}`;
    await tx.ticket.create({
      data: {
        id,
        accountId,
        number,
        subject,
        department,
        priority,
        status: 'open',
        lastReplyAt: now,
        createdAt: now,
        messages: {
          create: {
            id: newId(ID_PREFIX.ticketMessage, now.getTime()),
            author: 'customer',
            body: message,
            createdAt: now,
          },
        },
      },
    });
    await recordEvent(
      tx,
      accountId,
      'ticket.created',
      { ticketId: id, ticketNumber: number, subject, status: 'open', priority },
      now,
    );
    return detail(await find(tx, id));
  });
}

/** Locks the ticket so concurrent replies and a close queue behind each other. */
async function lockTicket(tx: Tx, id: string) {
  await tx.$queryRaw`SELECT "id" FROM "Ticket" WHERE "id" = ${id} FOR UPDATE`;
}

function refuseClosed(t: TicketRow) {
  if (t.status === 'closed')
    throw badRequest(
      `Ticket ${t.number} is closed, so it takes no more replies; open a new ticket and mention ${t.number}.`,
      'body',
    );
}

async function addMessage(tx: Tx, ticket: TicketRow, author: 'customer' | 'staff', body: string, now: Date) {
  await tx.ticketMessage.create({
    data: { id: newId(ID_PREFIX.ticketMessage, now.getTime()), ticketId: ticket.id, author, body, createdAt: now },
  });
  return tx.ticket.update({
    where: { id: ticket.id },
    data: { status: author === 'staff' ? 'answered' : 'open', lastReplyAt: now },
  });
}

/** A customer reply: the ticket is `open` (waiting on support) again, `ticket.customer.replied`. 400 on a closed ticket. */
export async function replyTicket(ctx: TicketContext, id: string, input: { body: string }) {
  const body = input.body.trim();
  const now = ctx.app.clock.now();
  return ctx.db.$transaction(async (tx) => {
    await lockTicket(tx, id);
    const ticket = await find(tx, id);
    refuseClosed(ticket);
    const updated = await addMessage(tx, ticket, 'customer', body, now);
    await recordEvent(
      tx,
      ticket.accountId,
      'ticket.customer.replied',
      { ticketId: id, ticketNumber: ticket.number, subject: ticket.subject, status: updated.status },
      now,
    );
    return detail(await find(tx, id));
  });
}

/** Closes a ticket, `ticket.closed`; closing a closed ticket answers 200 unchanged and records nothing. */
export async function closeTicket(ctx: TicketContext, id: string) {
  const now = ctx.app.clock.now();
  return ctx.db.$transaction(async (tx) => {
    await lockTicket(tx, id);
    const ticket = await find(tx, id);
    if (ticket.status !== 'closed') {
      await tx.ticket.update({ where: { id }, data: { status: 'closed', closedAt: now } });
      await recordEvent(
        tx,
        ticket.accountId,
        'ticket.closed',
        { ticketId: id, ticketNumber: ticket.number, subject: ticket.subject, status: 'closed' },
        now,
      );
    }
    return detail(await find(tx, id));
  });
}

/** Operator API: a staff reply; the ticket is `answered`, `ticket.replied`. 400 on a closed ticket. */
export async function staffReply(prisma: PrismaClient, id: string, input: { body?: unknown }, now: Date) {
  // The operator API replies here without GraphQL's check of the declared rules.
  const bodyInput = typeof input.body === 'string' ? input.body : '';
  checkInput(MESSAGE_RULES, bodyInput, 'body');
  const body = bodyInput.trim();
  if (!/^tkt_[0-9a-z]{26}$/.test(id)) throw notFound('Ticket');
  return prisma.$transaction(async (tx) => {
    await lockTicket(tx, id);
    const ticket = await find(tx, id);
    refuseClosed(ticket);
    const updated = await addMessage(tx, ticket, 'staff', body, now);
    await recordEvent(
      tx,
      ticket.accountId,
      'ticket.replied',
      { ticketId: id, ticketNumber: ticket.number, subject: ticket.subject, status: updated.status },
      now,
    );
    return detail(await find(tx, id));
  });
}

// The graph's batched reads.

export async function ticketsByIds(db: TenantDb, ids: readonly string[]) {
  return (await db.ticket.findMany({ where: { id: { in: [...ids] } } })).map(ticketView);
}

const MESSAGE_SELECT = { id: true, ticketId: true, author: true, body: true, createdAt: true } as const;

/** The messages of several tickets (already read through the tenant client), oldest first. */
export async function messagesOfTickets(db: TenantDb, ticketIds: readonly string[]) {
  return db.ticketMessage.findMany({
    where: { ticketId: { in: [...ticketIds] } },
    orderBy: { id: 'asc' },
    select: MESSAGE_SELECT,
  });
}

/**
 * Messages by id. A message has no account column of its own, so they are read through their
 * tickets, which the tenant client filters (one statement: relations load as joins).
 */
export async function messagesByIds(db: TenantDb, ids: readonly string[]) {
  const byId = { id: { in: [...ids] } };
  const tickets = await db.ticket.findMany({
    where: { messages: { some: byId } },
    select: { messages: { where: byId, select: MESSAGE_SELECT } },
  });
  return tickets.flatMap((t) => t.messages);
}
