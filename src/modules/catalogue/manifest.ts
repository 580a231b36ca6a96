import { defineArea } from '../../core/area.ts';

/** The product catalogue's reads (docs/DESIGN.md: Areas declare themselves once). It declares nothing more. */
export const catalogueArea = defineArea({ name: 'catalogue' });
