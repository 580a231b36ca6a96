import { defineArea } from '../../core/area.ts';

/** Credentials: API keys (docs/DESIGN.md: Areas declare themselves once). No operations of its own. */
export const authArea = defineArea({ name: 'auth', idPrefixes: { apiKey: 'key', mcpTask: 'tsk' } });
