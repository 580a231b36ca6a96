import { builder } from '../../schema/builder.ts';
import { loadedNode } from '../../schema/node-kinds.ts';
import { Deleted } from '../../schema/deleted.ts';
import { example, values } from '../../schema/examples.ts';

import { inputSchema } from '../../schema/input-schemas.ts';
import { pagedListQuery } from '../../schema/operation-fields.ts';
import { operationsOf, destroys } from '../../schema/operation.ts';
import { listConnection } from '../../schema/pagination.ts';
import {
  addSshKey,
  deleteSshKey,
  listSshKeys,
  RSA_MIN_BITS,
  SSH_KEY_EXISTS,
  SSH_KEY_RULES,
  SSH_KEY_TYPES,
  SSH_KEYS_PER_ACCOUNT,
  type SshKeyRow,
} from './ssh-keys.ts';
import { accountArea } from './manifest.ts';

const op = operationsOf(accountArea);

// SSH public keys on the account: listed, added and deleted here; chosen by id when a server is
// ordered or reinstalled (serverOrder, serverReinstall `sshKeyIds`).

const SshKey = builder.node(builder.objectRef<SshKeyRow>('SshKey'), {
  ...loadedNode('SshKey', {
    prefix: 'ssh',
    scope: 'account:read',
    id: { description: 'The key id (ssh_…).' },
    load: (ctx, ids) => ctx.db.sshKey.findMany({ where: { id: { in: [...ids] } } }),
  }),
  description: 'An SSH public key kept on the account, to install on servers at order or reinstall.',
  restCase: 'snake',
  fields: (t) => ({
    name: t.exposeString('name', { description: 'Your name for the key.', ...example('ada@laptop') }),
    type: t.exposeString('keyType', {
      ...values(SSH_KEY_TYPES, 'ssh-ed25519'),
      description: 'ssh-ed25519, ecdsa-sha2-nistp256 or ssh-rsa.',
    }),
    bits: t.exposeInt('bits', { description: 'Key size in bits (256 for ed25519 and nistp256).' }),
    fingerprint: t.exposeString('fingerprint', {
      description: 'SHA256 fingerprint, as `ssh-keygen -lf` prints it.',
      ...example('SHA256:O9jW8WpQR8EOR0rvjPB4atpF78tQVT2YxXgIbtcE5KU'),
    }),
    publicKey: t.exposeString('publicKey', {
      description: 'The public key, `<type> <base64>` (its comment dropped).',
    }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When it was added.' }),
  }),
});

pagedListQuery({
  name: 'sshKeys',
  type: listConnection(SshKey),
  list: (ctx, args) => listSshKeys(ctx.db, args),
  operation: op({
    summary: 'List SSH keys',
    scope: 'account:read',
    rest: 'GET /account/ssh-keys',
    toolVerb: 'list',
    description: "The account's SSH public keys, newest first, with their SHA256 fingerprints.",
  }),
});

builder.mutationField('sshKeyAdd', (t) =>
  t.field({
    ...op({
      summary: 'Add an SSH key',
      scope: 'account:write',
      rest: 'POST /account/ssh-keys',
      refuses: [SSH_KEY_EXISTS],
      description: `Keep an SSH public key on the account, to choose when ordering or reinstalling a server (\`sshKeyIds\`). One OpenSSH line (a .pub file): ssh-ed25519, ecdsa-sha2-nistp256, or ssh-rsa of ${RSA_MIN_BITS} bits or more; 400 naming \`public_key\` otherwise, 409 when the same key is already on the account. At most ${SSH_KEYS_PER_ACCOUNT} keys. A server already built is not changed.`,
      fires: ['account.ssh_key.added'],
    }),
    type: SshKey,
    restCase: 'snake',
    args: {
      name: t.arg.string({
        required: true,
        description: 'A name to tell it apart.',
        ...inputSchema(SSH_KEY_RULES.name),
      }),
      publicKey: t.arg.string({
        required: true,
        description: 'The public key line: "ssh-ed25519 AAAA… comment".',
        ...inputSchema(SSH_KEY_RULES.publicKey),
      }),
    },
    resolve: (_root, args, ctx) => addSshKey(ctx.db, ctx.principal!.accountId, args, ctx.app.clock.now()),
  }),
);

builder.mutationField('sshKeyDelete', (t) =>
  t.field({
    ...op({
      summary: 'Delete an SSH key',
      scope: 'account:write',
      rest: 'DELETE /account/ssh-keys/:id',
      consequence: destroys('Remove SSH key {id} from the account.'),
      description:
        'Remove an SSH key from the account. Servers built with it keep it in their authorized keys (and list it) until they are reinstalled.',
      fires: ['account.ssh_key.deleted'],
    }),
    type: Deleted,
    args: {
      id: t.arg.id({
        required: true,
        description: 'The SSH key id (ssh_…).',
        ...example('ssh_01jq8k2m4p6rab3c5d7e9f1g2h'),
      }),
    },
    resolve: (_root, args, ctx) => deleteSshKey(ctx.db, ctx.principal!.accountId, args.id, ctx.app.clock.now()),
  }),
);
