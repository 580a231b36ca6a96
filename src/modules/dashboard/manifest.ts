import { defineArea } from '../../core/area.ts';

/** The dashboard's sign-in and sessions (docs/DESIGN.md: Areas declare themselves once). No operations of its own. */
export const dashboardArea = defineArea({ name: 'dashboard', idPrefixes: { dashboardSession: 'ses' } });
