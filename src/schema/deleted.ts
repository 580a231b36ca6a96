import { builder } from './builder.ts';
import { example } from './examples.ts';

/**
 * The one answer of a delete that names its resource by id (snapshots, backups, webhooks).
 * Deletes that name a path or a database keep their own shape (they have no id), and mail's
 * keep an integer id, as the spec gives mailboxes and aliases.
 */
export const Deleted = builder.objectRef<{ id: string; deleted: boolean }>('Deleted').implement({
  description: 'Confirmation that a resource was deleted.',
  fields: (t) => ({
    id: t.exposeID('id', {
      description: 'The id of the resource deleted.',
      ...example('snap_01jq8k2m4p6rab3c5d7e9f1g2h'),
    }),
    deleted: t.exposeBoolean('deleted', { description: 'Always true.' }),
  }),
});
