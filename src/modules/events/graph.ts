import { nodeKind } from '../../schema/graph.ts';
import { EVENT_TYPES } from '../../events/catalog.ts';
import type { EventEnvelope } from '../../events/envelope.ts';
import { eventsByIds } from './service.ts';

// An event by its id. Events have no scope of their own: as in the events subscription, each
// is read with its kind's read scope (catalog.ts), so the scope is checked per event.
nodeKind({
  prefix: 'evt',
  typename: 'Event',
  scope: (e: EventEnvelope) => EVENT_TYPES[e.type].scope,
  load: (ctx, ids) => eventsByIds(ctx.db, ids),
});
