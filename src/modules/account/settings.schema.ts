import { z } from 'zod';
import { builder } from '../../schema/builder.ts';
import { Deleted } from '../../schema/deleted.ts';
import { example, values } from '../../schema/examples.ts';
import { inputSchema } from '../../schema/input-schemas.ts';
import { pagedListQuery } from '../../schema/operation-fields.ts';
import { operationsOf } from '../../schema/operation.ts';
import { listConnection } from '../../schema/pagination.ts';
import { endAccountSessions, listAccountSessions, type SessionView } from '../dashboard/account-sessions.ts';
import {
  PASSWORD_SIGN_IN_REQUIRED,
  requirePasswordPrincipal,
  SUDO_REQUIRED,
  SUDO_WINDOW_SECONDS,
} from '../dashboard/sessions.ts';
import { ACCOUNT_RULES, PASSWORD_LENGTH } from './service.ts';
import { changePassword, EMAIL_TAKEN, updateProfile } from './settings.ts';
import type { RequestContext } from '../../schema/context.ts';
import { accountArea } from './manifest.ts';

const op = operationsOf(accountArea);

// The holder's settings: profile, password and signed-in sessions. The password and the sessions
// are the console's alone (a password sign-in; docs/SECURITY.md): a key or token that could
// change the password or end sessions could lock the holder out, so they are no MCP tools and
// answer 403 PASSWORD_SIGN_IN_REQUIRED to keys, tokens and sessions from sign-in links.

const CONSOLE_ONLY =
  "acts on a person's sign-in at the console (password sessions only; a key or token could lock them out)";
const SUDO_MINUTES = SUDO_WINDOW_SECONDS / 60;

builder.mutationField('accountUpdate', (t) =>
  t.prismaField({
    ...op({
      summary: 'Update the account profile',
      scope: 'account:write',
      rest: 'PATCH /account',
      refuses: [EMAIL_TAKEN, PASSWORD_SIGN_IN_REQUIRED, SUDO_REQUIRED],
      description: `Change the holder's name, country, sign-in e-mail or invoice e-mail; only the fields given change. A new sign-in e-mail is unverified, must be no other account's (409), and can only be set from the console signed in with the password within the last ${SUDO_MINUTES} minutes (403 otherwise): keys and tokens can change the rest.`,
    }),
    type: 'Account',
    restCase: 'snake',
    args: {
      name: t.arg.string({ required: false, description: "The holder's name.", ...inputSchema(ACCOUNT_RULES.name) }),
      country: t.arg.string({
        required: false,
        description: 'Country, ISO 3166-1 alpha-2 (DE).',
        ...inputSchema(ACCOUNT_RULES.country),
      }),
      email: t.arg.string({
        required: false,
        description: 'The sign-in e-mail (password session in sudo mode only).',
        ...inputSchema(ACCOUNT_RULES.email),
      }),
      invoiceEmail: t.arg.string({
        required: false,
        description: 'Where invoice notices go; "" or null for the sign-in e-mail.',
      }),
    },
    resolve: (query, _root, args, ctx) => updateProfile(ctx, args, query),
  }),
);

const PasswordChanged = builder.objectRef<{ changed: true; sessionsEnded: number }>('PasswordChanged').implement({
  description: 'A password changed: the other sessions of the account have ended.',
  restCase: 'snake',
  fields: (t) => ({
    changed: t.exposeBoolean('changed', { description: 'Always true.' }),
    sessionsEnded: t.exposeInt('sessionsEnded', {
      description: 'How many other signed-in sessions ended.',
    }),
  }),
});

builder.mutationField('accountPasswordChange', (t) =>
  t.field({
    ...op({
      summary: 'Change the password',
      scope: 'account:write',
      rest: 'POST /account/password',
      notTool: CONSOLE_ONLY,
      caller: 'password session',
      rateLimit: 'passwordChange',
      refuses: [PASSWORD_SIGN_IN_REQUIRED],
      description: `Set a new sign-in password, given the current one (400 naming \`current_password\` when wrong). ${PASSWORD_LENGTH.min} to ${PASSWORD_LENGTH.max} characters, not the current one. Every other signed-in session of the account ends at once; this one stays. API keys and connected apps keep working. Only from the console signed in with the password: keys, tokens and sign-in-link sessions get 403.`,
    }),
    type: PasswordChanged,
    restCase: 'snake',
    args: {
      currentPassword: t.arg.string({
        required: true,
        description: 'The password in use now.',
        ...inputSchema(z.string().min(1).max(PASSWORD_LENGTH.max)),
      }),
      newPassword: t.arg.string({
        required: true,
        description: 'The new password.',
        ...inputSchema(ACCOUNT_RULES.password),
      }),
    },
    resolve: (_root, args, ctx) => changePassword(ctx, args),
  }),
);

const AccountSession = builder.objectRef<SessionView>('AccountSession').implement({
  description: 'A signed-in console session of the account (its secret is never shown).',
  restCase: 'snake',
  fields: (t) => ({
    id: t.exposeID('id', { description: 'The session id (ses_…).' }),
    current: t.exposeBoolean('current', { description: 'True for the session making this request.' }),
    signedInWith: t.exposeString('signedInWith', {
      ...values(['password', 'link'], 'password'),
      description: "password, or link for a session opened from a server's sign-in link.",
    }),
    browser: t.exposeString('browser', {
      nullable: true,
      description: 'The browser and system its User-Agent names ("Chrome 131 on Linux"); null when none was sent.',
      ...example('Firefox 133 on Windows'),
    }),
    clientAddress: t.exposeString('clientAddress', {
      nullable: true,
      description: 'The address it signed in from.',
    }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When it signed in.' }),
    lastSeenAt: t.expose('lastSeenAt', {
      type: 'DateTime',
      description: 'Its last request, to the minute.',
    }),
    expiresAt: t.expose('expiresAt', {
      type: 'DateTime',
      description: 'When it ends by itself.',
    }),
  }),
});

const sessionOf = (ctx: RequestContext, what: string, sudo = false) =>
  requirePasswordPrincipal(ctx.principal, ctx.app.clock.now(), what, { sudo });

pagedListQuery({
  name: 'accountSessions',
  type: listConnection(AccountSession),
  list: (ctx, args) =>
    listAccountSessions(ctx.db, sessionOf(ctx, 'list the signed-in sessions'), args, ctx.app.clock.now()),
  operation: op({
    summary: 'List signed-in sessions',
    scope: 'account:read',
    rest: 'GET /account/sessions',
    toolVerb: 'list',
    notTool: CONSOLE_ONLY,
    caller: 'password session',
    refuses: [PASSWORD_SIGN_IN_REQUIRED],
    description:
      "The account's live console sessions, newest first: the one asking marked `current`, when each signed in and was last seen, its browser and address. Only from the console signed in with the password.",
  }),
});

builder.mutationField('accountSessionEnd', (t) =>
  t.field({
    ...op({
      summary: 'End a signed-in session',
      scope: 'account:write',
      rest: 'DELETE /account/sessions/:id',
      notTool: CONSOLE_ONLY,
      caller: 'password session',
      refuses: [PASSWORD_SIGN_IN_REQUIRED, SUDO_REQUIRED],
      description: `Sign another session of the account out, on every instance before the answer (404 when it is no live session of the account; 400 for the caller's own: sign out instead). Only from the console signed in with the password within the last ${SUDO_MINUTES} minutes.`,
    }),
    type: Deleted,
    args: {
      id: t.arg.id({
        required: true,
        description: 'The session id (ses_…).',
        ...example('ses_01jq8k2m4p6rab3c5d7e9f1g2h'),
      }),
    },
    resolve: async (_root, args, ctx) => {
      const currentId = sessionOf(ctx, 'end sessions', true);
      await endAccountSessions(ctx.app, ctx.principal!.accountId, { only: args.id, currentId }, ctx.app.clock.now());
      return { id: args.id, deleted: true };
    },
  }),
);

builder.mutationField('accountSessionsEndOthers', (t) =>
  t.field({
    ...op({
      summary: 'End every other session',
      scope: 'account:write',
      rest: 'POST /account/sessions/end-others',
      notTool: CONSOLE_ONLY,
      caller: 'password session',
      refuses: [PASSWORD_SIGN_IN_REQUIRED, SUDO_REQUIRED],
      description: `Sign out every session of the account but the caller's, on every instance before the answer. Only from the console signed in with the password within the last ${SUDO_MINUTES} minutes.`,
    }),
    type: builder.objectRef<{ sessionsEnded: number }>('SessionsEnded').implement({
      description: 'How many sessions ended.',
      restCase: 'snake',
      fields: (f) => ({
        sessionsEnded: f.exposeInt('sessionsEnded', { description: 'How many other sessions ended.' }),
      }),
    }),
    resolve: async (_root, _args, ctx) => {
      const current = sessionOf(ctx, 'end sessions', true);
      const sessionsEnded = await endAccountSessions(
        ctx.app,
        ctx.principal!.accountId,
        { allBut: current },
        ctx.app.clock.now(),
      );
      return { sessionsEnded };
    },
  }),
);
