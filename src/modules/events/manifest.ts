import { defineArea } from '../../core/area.ts';

/** The event log's reads and live subscriptions (docs/DESIGN.md: Areas declare themselves once). */
export const eventsArea = defineArea({ name: 'events', idPrefixes: { event: 'evt' } });
