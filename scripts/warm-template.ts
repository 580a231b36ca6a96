// Builds the embedded database template once (postinstall), so the first start and every test
// database skip initdb. Safe to run again: it does nothing when the template is current.
import { ensureTemplate } from '../src/db/pglite-template.ts';

const started = Date.now();
await ensureTemplate();
console.log(`database template: ready in ${Date.now() - started} ms`);
