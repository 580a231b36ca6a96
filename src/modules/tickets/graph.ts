import { builder } from '../../schema/builder.ts';
import { accountListEdge, batchedList, edge, nodeKind } from '../../schema/graph.ts';
import { Ticket, TicketMessage } from './schema.ts';
import { listTickets, messagesByIds, messagesOfTickets, ticketsByIds } from './service.ts';

// Support tickets in the graph: Account.tickets → messages.

accountListEdge('tickets', 'tickets:read', Ticket, 'Support tickets, newest first.', (ctx, page) =>
  listTickets(ctx.db, page),
);

builder.objectField(Ticket, 'messages', (t) =>
  t.field({
    ...edge('tickets:read'),
    type: [TicketMessage],
    description: 'The thread, oldest first.',
    resolve: (ticket, _args, ctx) =>
      batchedList(
        ctx,
        'Ticket.messages',
        ticket.id,
        (ids) => messagesOfTickets(ctx.db, ids),
        (m) => m.ticketId,
      ),
  }),
);

nodeKind({ prefix: 'tkt', typename: 'Ticket', scope: 'tickets:read', load: (ctx, ids) => ticketsByIds(ctx.db, ids) });
nodeKind({
  prefix: 'tmsg',
  typename: 'TicketMessage',
  scope: 'tickets:read',
  load: (ctx, ids) => messagesByIds(ctx.db, ids),
});
