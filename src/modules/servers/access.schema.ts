import { builder } from '../../schema/builder.ts';
import { example } from '../../schema/examples.ts';
import { idOperation } from '../../schema/operation-fields.ts';
import { operationsOf } from '../../schema/operation.ts';
import { CONSOLE_NEEDS_RUNNING, openServerConsole } from './console.ts';
import { SERVER_BUSY } from './server-row.ts';
import { resetRootPassword, PASSWORD_NEEDS_RUNNING } from './service.ts';
import { createSsoLink } from './sso.ts';
import type { InstalledKey } from '../account/ssh-keys.ts';
import { serversArea } from './manifest.ts';

const op = operationsOf(serversArea);

// Getting into a server: a dashboard sign-in link, a new root password, the web console, and
// the SSH keys it was built with.

const ServerSshKey = builder.objectRef<InstalledKey>('ServerSshKey').implement({
  description:
    "An SSH key in root's authorized_keys, as the server was built (it stays after the key leaves the account).",
  fields: (t) => ({
    id: t.exposeString('id', {
      description: 'The account key it came from (ssh_…).',
      ...example('ssh_01jq8k2m4p6rab3c5d7e9f1g2h'),
    }),
    name: t.exposeString('name', { description: 'Its name when the server was built.', ...example('ada@laptop') }),
    fingerprint: t.exposeString('fingerprint', {
      description: 'SHA256 fingerprint.',
      ...example('SHA256:O9jW8WpQR8EOR0rvjPB4atpF78tQVT2YxXgIbtcE5KU'),
    }),
  }),
});

builder.prismaObjectFields('Server', (t) => ({
  sshKeys: t.field({
    type: [ServerSshKey],
    description: 'The SSH keys the server was last ordered or reinstalled with, in the order given; [] for none.',
    resolve: (server) => (Array.isArray(server.sshKeys) ? (server.sshKeys as unknown as InstalledKey[]) : []),
  }),
}));

const SsoLink = builder.objectRef<{ url: string; expiresAt: Date }>('SsoLink').implement({
  description: 'A single-use dashboard login URL.',
  fields: (t) => ({
    url: t.exposeString('url', {
      ...example(
        'https://cloud.example.com/sso/sso_7Jq2xV9kLmN4pR8sT1wY3zA6bC5dE0fGhI2jK4lM6nO8pQ0rS?next=%2Fservers%2Fsrv_01jq8k2m4p6rab3c5d7e9f1g2h',
      ),
      description: 'Open it in a browser to sign in; it works once.',
    }),
    expiresAt: t.expose('expiresAt', {
      type: 'DateTime',
      description: 'When the link stops working (5 minutes after it was made).',
    }),
  }),
});

builder.mutationField('serverSso', (t) =>
  t.field({
    ...op({
      summary: 'Sign in to the dashboard',
      scope: 'servers:read',
      rest: 'POST /servers/:id/sso',
      notTool: 'hands out a one-time dashboard login link for a person at a browser',
      hints: { readOnly: true, idempotent: false },
      description:
        "A short-lived, single-use URL that signs the account holder into the dashboard on this server's page (or `next`). Changes nothing on the server.",
    }),
    type: SsoLink,
    args: {
      id: t.arg.id({ required: true, description: 'The server id.' }),
      next: t.arg.string({
        required: false,
        description: 'Relative dashboard path to land on (default: the server page).',
      }),
    },
    resolve: (_root, args, ctx) => createSsoLink(ctx, args.id, args.next),
  }),
);

const PasswordReset = builder
  .objectRef<Awaited<ReturnType<typeof resetRootPassword>>>('ServerPasswordReset')
  .implement({
    description: 'A new root password, shown once and stored nowhere.',
    fields: (t) => ({
      serverId: t.exposeString('serverId', { description: 'The server.' }),
      username: t.exposeString('username', {
        ...example('root'),
        description: 'The administrator to sign in as: root (Linux) or Administrator (Windows).',
      }),
      rootPassword: t.exposeString('rootPassword', { description: 'The new password, shown only in this answer.' }),
    }),
  });

idOperation({
  root: 'mutation',
  name: 'serverPasswordReset',
  type: PasswordReset,
  idDescription: 'The server id.',
  run: resetRootPassword,
  operation: op({
    summary: 'Reset the root password',
    scope: 'servers:write',
    refuses: [SERVER_BUSY, PASSWORD_NEEDS_RUNNING],
    rest: 'POST /servers/:id/password-reset',
    notTool: 'returns a root password; handing it to a model is not a safe default',
    description:
      'Set a new random root password through the guest agent and return it once. The server must be running (409 otherwise).',
  }),
});

const ConsoleLink = builder.objectRef<Awaited<ReturnType<typeof openServerConsole>>>('ServerConsoleLink').implement({
  description: "A single-use URL that opens the server's web console (its serial console) in a browser.",
  fields: (t) => ({
    serverId: t.exposeString('serverId', { description: 'The server.' }),
    url: t.exposeString('url', {
      ...example(
        'https://cloud.example.com/server-console/srv_01jq8k2m4p6rab3c5d7e9f1g2h#ticket=con_Qm9yZ2VkVGlja2V0Tm90UmVhbDEyMzQ1',
      ),
      description:
        'Open it in a browser: a terminal on the serial console, with a login prompt (root and the root password). It connects once; the ticket after `#` never reaches a log.',
    }),
    expiresAt: t.expose('expiresAt', {
      type: 'DateTime',
      description: 'When the URL stops opening the console if unused (60 seconds after it was made).',
    }),
  }),
});

idOperation({
  root: 'mutation',
  name: 'serverConsole',
  type: ConsoleLink,
  idDescription: 'The server id.',
  run: openServerConsole,
  operation: op({
    summary: 'Open the web console',
    scope: 'servers:write',
    refuses: [CONSOLE_NEEDS_RUNNING],
    rest: 'POST /servers/:id/console',
    notTool: 'hands out a console URL for a person at a browser; a root shell is not a safe default for a model',
    description:
      "A single-use URL, valid for 60 seconds, that opens the server's serial console in a browser: a login prompt (root, or Administrator on Windows, and the root password) and a shell, streamed over a WebSocket. The same for a private-only pool server. The server must be running (409 otherwise).",
  }),
});
