import { builder } from '../../schema/builder.ts';
import { batchedList, connectionArgs, connectionOfPage, connectionType, edge, nodeKind, pageSize } from '../../schema/graph.ts';
import { Ticket, TicketMessage } from './schema.ts';
import { listTickets, messagesOfTickets, ticketsByIds } from './service.ts';

// Support tickets in the graph: Account.tickets → messages.

const TicketConnection = connectionType('Ticket', Ticket);

builder.prismaObjectField('Account', 'tickets', (t) =>
  t.field({
    ...edge('tickets:read'),
    type: TicketConnection,
    description: 'Support tickets, newest first.',
    args: connectionArgs(t),
    resolve: async (_a, args, ctx) => connectionOfPage(await listTickets(ctx.db, { limit: pageSize(args), cursor: args.after })),
  }),
);

builder.objectField(Ticket, 'messages', (t) =>
  t.field({
    ...edge('tickets:read'),
    type: [TicketMessage],
    description: 'The thread, oldest first.',
    resolve: (ticket, _args, ctx) => batchedList(ctx, 'Ticket.messages', ticket.id, (ids) => messagesOfTickets(ctx.db, ids), (m) => m.ticketId),
  }),
);

nodeKind({ prefix: 'tkt', typename: 'Ticket', scope: 'tickets:read', load: (ctx, ids) => ticketsByIds(ctx.db, ids) });
