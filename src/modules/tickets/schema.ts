import { builder } from '../../schema/builder.ts';
import { Node } from '../../schema/graph.ts';
import { rules } from '../../schema/input-rules.ts';
import { operation } from '../../schema/operation.ts';
import { listType, pageArgs } from '../../schema/pagination.ts';
import { closeTicket, createTicket, DEPARTMENTS, getTicket, listTickets, MESSAGE_MAX, MESSAGE_RULES, PRIORITIES, replyTicket, SUBJECT_MAX, SUBJECT_RULES, type TicketDetail, type TicketView } from './service.ts';

const ticketFields = (t: any) => ({
  id: t.exposeID('id'),
  number: t.exposeString('number', { description: 'TKT-<number>, as in ticket events (ticketNumber).' }),
  subject: t.exposeString('subject'),
  department: t.exposeString('department', { description: DEPARTMENTS.join(', ') + '.' }),
  priority: t.exposeString('priority', { description: PRIORITIES.join(', ') + '.' }),
  status: t.exposeString('status', { description: 'open (waiting on support), answered (waiting on you) or closed.' }),
  lastReplyAt: t.expose('lastReplyAt', { type: 'DateTime' }),
  closedAt: t.expose('closedAt', { type: 'DateTime', nullable: true }),
  createdAt: t.expose('createdAt', { type: 'DateTime' }),
});

export const Ticket = builder.objectRef<TicketView>('Ticket').implement({
  interfaces: [Node],
  description: 'A support ticket.',
  fields: (t) => ticketFields(t),
});

export const TicketMessage = builder.objectRef<TicketDetail['messages'][number]>('TicketMessage').implement({
  description: 'One message of a ticket thread.',
  fields: (t) => ({
    id: t.exposeID('id'),
    author: t.exposeString('author', { description: 'customer or staff.' }),
    body: t.exposeString('body'),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
  }),
});

const TicketWithThread = builder.objectRef<TicketDetail>('TicketDetail').implement({
  description: 'A support ticket with its message thread, oldest first.',
  fields: (t) => ({ ...ticketFields(t), messages: t.field({ type: [TicketMessage], resolve: (d) => d.messages }) }),
});

const TicketList = listType('TicketList', Ticket);

builder.queryField('tickets', (t) =>
  t.field({
    ...operation({ summary: 'List tickets', scope: 'tickets:read', rest: 'GET /tickets', area: 'tickets', tool: 'tickets_list',
      description: 'The support tickets of the account, newest first. A page of the list envelope; follow nextCursor while hasMore.' }),
    type: TicketList,
    args: pageArgs(t),
    resolve: (_root, args, ctx) => listTickets(ctx.db, args),
  }),
);

builder.queryField('ticket', (t) =>
  t.field({
    ...operation({ summary: 'Get a ticket', scope: 'tickets:read', rest: 'GET /tickets/:id', area: 'tickets', tool: 'ticket_get',
      description: 'One support ticket with its whole message thread, oldest first.' }),
    type: TicketWithThread,
    args: { id: t.arg.id({ required: true, description: 'The ticket id.' }) },
    resolve: (_root, args, ctx) => getTicket(ctx.db, args.id),
  }),
);

builder.mutationField('ticketCreate', (t) =>
  t.field({
    ...operation({ summary: 'Open a ticket', scope: 'tickets:write', rest: 'POST /tickets', area: 'tickets', tool: 'ticket_create',
      description: 'Open a support ticket with a first message; it starts `open`.', fires: ['ticket.created'] }),
    type: TicketWithThread,
    args: {
      subject: t.arg.string({ required: true, description: `1 to ${SUBJECT_MAX} characters.`, ...rules(SUBJECT_RULES) }),
      message: t.arg.string({ required: true, description: `The first message, 1 to ${MESSAGE_MAX} characters.`, ...rules(MESSAGE_RULES) }),
      department: t.arg.string({ required: false, description: `${DEPARTMENTS.join(', ')} (default general).` }),
      priority: t.arg.string({ required: false, description: `${PRIORITIES.join(', ')} (default normal).` }),
    },
    resolve: (_root, args, ctx) => createTicket(ctx, args),
  }),
);

builder.mutationField('ticketReply', (t) =>
  t.field({
    ...operation({ summary: 'Reply to a ticket', scope: 'tickets:write', rest: 'POST /tickets/:id/reply', area: 'tickets', tool: 'ticket_reply',
      description: 'Add a customer reply to a ticket; the ticket is `open` again (a staff reply makes it `answered` and fires `ticket.replied`). 400 when the ticket is closed: open a new one.' }),
    type: TicketWithThread,
    args: { id: t.arg.id({ required: true, description: 'The ticket id.' }), body: t.arg.string({ required: true, description: `1 to ${MESSAGE_MAX} characters.`, ...rules(MESSAGE_RULES) }) },
    resolve: (_root, args, ctx) => replyTicket(ctx, args.id, args),
  }),
);

builder.mutationField('ticketClose', (t) =>
  t.field({
    ...operation({ summary: 'Close a ticket', scope: 'tickets:write', rest: 'POST /tickets/:id/close', area: 'tickets', tool: 'ticket_close',
      description: 'Close a support ticket; it takes no more replies. Closing a closed ticket changes nothing.' }),
    type: TicketWithThread,
    args: { id: t.arg.id({ required: true, description: 'The ticket id.' }) },
    resolve: (_root, args, ctx) => closeTicket(ctx, args.id),
  }),
);
