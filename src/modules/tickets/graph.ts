import { groupBy } from '../../core/paging.ts';
import { builder } from '../../schema/builder.ts';
import { accountListEdge, edge, LOADER_OPTIONS, nodeKind } from '../../schema/graph.ts';
import { Ticket, TicketMessage } from './schema.ts';
import { listTickets, messagesByIds, messagesOfTickets, ticketsByIds } from './service.ts';

// Support tickets in the graph: Account.tickets → messages.

accountListEdge('tickets', 'tickets:read', Ticket, 'Support tickets, newest first.', (ctx, page) =>
  listTickets(ctx.db, page),
);

builder.objectField(Ticket, 'messages', (t) =>
  t.loadableList({
    ...edge('tickets:read'),
    type: TicketMessage,
    description: 'The thread, oldest first.',
    loaderOptions: LOADER_OPTIONS,
    resolve: (ticket) => ticket.id,
    load: async (ids: string[], ctx) => groupBy(ids, await messagesOfTickets(ctx.db, ids), (m) => m.ticketId),
  }),
);

nodeKind({ prefix: 'tkt', typename: 'Ticket', scope: 'tickets:read', load: (ctx, ids) => ticketsByIds(ctx.db, ids) });
nodeKind({
  prefix: 'tmsg',
  typename: 'TicketMessage',
  scope: 'tickets:read',
  load: (ctx, ids) => messagesByIds(ctx.db, ids),
});
