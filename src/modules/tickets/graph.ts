import { accountListEdge, nodeKind } from '../../schema/graph.ts';
import { Ticket } from './schema.ts';
import { listTickets, messagesByIds, ticketsByIds } from './service.ts';

// Support tickets in the graph: Account.tickets (a ticket's messages are a field of Ticket).

accountListEdge('tickets', 'tickets:read', Ticket, 'Support tickets, newest first.', (ctx, page) =>
  listTickets(ctx.db, page),
);

nodeKind({ prefix: 'tkt', typename: 'Ticket', scope: 'tickets:read', load: (ctx, ids) => ticketsByIds(ctx.db, ids) });
nodeKind({
  prefix: 'tmsg',
  typename: 'TicketMessage',
  scope: 'tickets:read',
  load: (ctx, ids) => messagesByIds(ctx.db, ids),
});
