import type { ObjectFieldBuilder } from '@pothos/core';
import { builder, type Types } from '../../schema/builder.ts';
import { loadedNode } from '../../schema/node-kinds.ts';
import { example, values } from '../../schema/examples.ts';
import { groupBy } from '../../core/paging.ts';
import { requestLoader } from '../../schema/graph.ts';
import { inputSchema } from '../../schema/input-schemas.ts';
import { idOperation, pagedListQuery } from '../../schema/operation-fields.ts';
import { operationsOf } from '../../schema/operation.ts';
import { listConnection } from '../../schema/pagination.ts';
import { restDetailType } from '../../schema/rest-name.ts';
import {
  closeTicket,
  createTicket,
  DEPARTMENTS,
  getTicket,
  listTickets,
  messagesOfTickets,
  MESSAGE_AUTHORS,
  MESSAGE_MAX,
  MESSAGE_RULES,
  PRIORITIES,
  TICKET_STATES,
  replyTicket,
  SUBJECT_MAX,
  SUBJECT_RULES,
  type TicketDetail,
  type TicketView,
  ticketsByIds,
  messagesByIds,
} from './service.ts';
import { ticketsArea } from './manifest.ts';

const op = operationsOf(ticketsArea);

const ticketFields = (t: ObjectFieldBuilder<Types, TicketView>) => ({
  number: t.exposeString('number', {
    ...example('TKT-100042'),
    description: 'TKT-<number>, as in ticket events (ticketNumber).',
  }),
  subject: t.exposeString('subject', {
    untrusted: true,
    description: `The subject, 1 to ${SUBJECT_MAX} characters.`,
  }),
  department: t.exposeString('department', {
    ...values(DEPARTMENTS, 'technical'),
    description: `${DEPARTMENTS.join(', ')}.`,
  }),
  priority: t.exposeString('priority', { ...values(PRIORITIES, 'normal'), description: `${PRIORITIES.join(', ')}.` }),
  status: t.exposeString('status', {
    ...values(TICKET_STATES),
    description: 'open (waiting on support), answered (waiting on you) or closed.',
  }),
  lastReplyAt: t.expose('lastReplyAt', { type: 'DateTime', description: 'When the last message was added.' }),
  closedAt: t.expose('closedAt', {
    type: 'DateTime',
    nullable: true,
    description: 'When it was closed; null unless closed.',
  }),
  createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When it was opened.' }),
});

// One type: REST shows its list items without the thread and its detail (TicketDetail) with it.
export const Ticket = builder.node(builder.objectRef<TicketView & Partial<Pick<TicketDetail, 'messages'>>>('Ticket'), {
  ...loadedNode('Ticket', {
    prefix: 'tkt',
    scope: 'tickets:read',
    id: { description: 'The ticket id (tkt_…).' },
    load: (ctx, ids) => ticketsByIds(ctx.db, ids),
  }),
  description: 'A support ticket.',
  ...restDetailType('TicketDetail', 'A support ticket with its message thread, oldest first.'),
  fields: (t) => ticketFields(t),
});

const TicketMessage = builder.node(builder.objectRef<TicketDetail['messages'][number]>('TicketMessage'), {
  ...loadedNode('TicketMessage', {
    prefix: 'tmsg',
    scope: 'tickets:read',
    id: { description: 'The message id (tmsg_…).' },
    load: (ctx, ids) => messagesByIds(ctx.db, ids),
  }),
  description: 'One message of a ticket thread.',
  fields: (t) => ({
    author: t.exposeString('author', { ...values(MESSAGE_AUTHORS), description: 'customer or staff.' }),
    body: t.exposeString('body', {
      untrusted: true,
      description: `The message text, 1 to ${MESSAGE_MAX} characters.`,
    }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When it was sent.' }),
  }),
});

/**
 * Each ticket's thread, all tickets of one level in one statement. A ticket read by id (and by
 * its writes) already carries its thread from the same statement as the ticket: it is not read twice.
 */
const threads = requestLoader<string, TicketDetail['messages']>(async (ids, ctx) =>
  groupBy(ids, await messagesOfTickets(ctx.db, ids), (m) => m.ticketId),
);

builder.objectField(Ticket, 'messages', (t) =>
  t.field({
    restDetail: true,
    type: [TicketMessage],
    description: 'The thread, oldest first.',
    resolve: (ticket, _args, ctx) => ticket.messages ?? threads(ctx).load(ticket.id),
  }),
);

const TicketConnection = listConnection(Ticket);

pagedListQuery({
  name: 'tickets',
  type: TicketConnection,
  list: (ctx, args) => listTickets(ctx.db, args),
  operation: op({
    summary: 'List tickets',
    scope: 'tickets:read',
    rest: 'GET /tickets',
    toolVerb: 'list',
    description: 'The support tickets of the account, newest first.',
  }),
});

idOperation({
  root: 'query',
  name: 'ticket',
  type: Ticket,
  idDescription: 'The ticket id.',
  run: (ctx, id) => getTicket(ctx.db, id),
  operation: op({
    summary: 'Get a ticket',
    scope: 'tickets:read',
    rest: 'GET /tickets/:id',
    toolVerb: 'get',
    description: 'One support ticket with its whole message thread, oldest first.',
  }),
  restDetail: true,
});

builder.mutationField('ticketCreate', (t) =>
  t.field({
    ...op({
      summary: 'Open a ticket',
      scope: 'tickets:write',
      rest: 'POST /tickets',
      description: 'Open a support ticket with a first message; it starts `open`.',
      fires: ['ticket.created'],
    }),
    restDetail: true,
    type: Ticket,
    args: {
      subject: t.arg.string({
        required: true,
        description: `1 to ${SUBJECT_MAX} characters.`,
        ...inputSchema(SUBJECT_RULES),
      }),
      message: t.arg.string({
        required: true,
        description: `The first message, 1 to ${MESSAGE_MAX} characters.`,
        ...inputSchema(MESSAGE_RULES),
      }),
      department: t.arg.string({
        required: false,
        description: `${DEPARTMENTS.join(', ')} (default general).`,
        ...values(DEPARTMENTS, 'technical'),
      }),
      priority: t.arg.string({
        required: false,
        description: `${PRIORITIES.join(', ')} (default normal).`,
        ...values(PRIORITIES, 'normal'),
      }),
    },
    resolve: (_root, args, ctx) => createTicket(ctx, args),
  }),
);

builder.mutationField('ticketReply', (t) =>
  t.field({
    ...op({
      summary: 'Reply to a ticket',
      scope: 'tickets:write',
      rest: 'POST /tickets/:id/reply',
      description:
        'Add a customer reply to a ticket; the ticket is `open` again (a staff reply makes it `answered` and fires `ticket.replied`). 400 when the ticket is closed: open a new one.',
      fires: ['ticket.customer.replied'],
    }),
    restDetail: true,
    type: Ticket,
    args: {
      id: t.arg.id({ required: true, description: 'The ticket id.' }),
      body: t.arg.string({
        required: true,
        description: `1 to ${MESSAGE_MAX} characters.`,
        ...inputSchema(MESSAGE_RULES),
      }),
    },
    resolve: (_root, args, ctx) => replyTicket(ctx, args.id, args),
  }),
);

idOperation({
  root: 'mutation',
  name: 'ticketClose',
  type: Ticket,
  idDescription: 'The ticket id.',
  run: closeTicket,
  operation: op({
    summary: 'Close a ticket',
    scope: 'tickets:write',
    rest: 'POST /tickets/:id/close',
    description: 'Close a support ticket; it takes no more replies. Closing a closed ticket changes nothing.',
    fires: ['ticket.closed'],
  }),
  restDetail: true,
});
