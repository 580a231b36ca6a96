import { defineArea, str, strOf } from '../../core/area.ts';

/** Support tickets (docs/DESIGN.md: Areas declare themselves once). */
export const ticketsArea = defineArea({
  name: 'tickets',
  api: {
    tag: 'Support tickets and their message threads.',
    toolset: { offered: 'by default', order: 6 },
    toolPrefixes: ['ticket', 'tickets'],
  },
  scopes: { 'tickets:read': 'Support ticket reads', 'tickets:write': 'Support ticket writes' },
  events: {
    order: 5,
    kinds: {
      'ticket.created': {
        scope: 'tickets:read',
        fields: {
          ticketId: str,
          ticketNumber: strOf('TKT-100042'),
          subject: str,
          status: strOf('open'),
          priority: str,
        },
      },
      'ticket.replied': {
        scope: 'tickets:read',
        fields: { ticketId: str, ticketNumber: strOf('TKT-100042'), subject: str, status: strOf('answered') },
      },
      // ticket.replied is support's reply (the spec's meaning); the customer's own reply, from any
      // client, is its own kind, so a subscriber to ticket.replied is not told of its own messages.
      'ticket.customer.replied': {
        scope: 'tickets:read',
        fields: { ticketId: str, ticketNumber: strOf('TKT-100042'), subject: str, status: strOf('open') },
      },
      'ticket.closed': {
        scope: 'tickets:read',
        fields: { ticketId: str, ticketNumber: strOf('TKT-100042'), subject: str, status: strOf('closed') },
      },
    },
  },
  idPrefixes: { ticket: 'tkt', ticketMessage: 'tmsg' },
});
