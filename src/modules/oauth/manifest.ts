import { defineArea } from '../../core/area.ts';

/** OAuth clients, grants and tokens (docs/DESIGN.md: Areas declare themselves once). No operations of its own. */
export const oauthArea = defineArea({ name: 'oauth', idPrefixes: { oauthClient: 'oac' } });
