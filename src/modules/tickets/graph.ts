import { accountListEdge } from '../../schema/graph.ts';
import { Ticket } from './schema.ts';
import { listTickets } from './service.ts';

// Support tickets in the graph: Account.tickets (a ticket's messages are a field of Ticket).

accountListEdge('tickets', 'tickets:read', Ticket, 'Support tickets, newest first.', (ctx, page) =>
  listTickets(ctx.db, page),
);
