import { builder } from '../../schema/builder.ts';
import { operation } from '../../schema/operation.ts';
import { getAccount } from './service.ts';

builder.prismaObject('Account', {
  description: 'The account the credential belongs to.',
  fields: (t) => ({
    id: t.exposeID('id'),
    email: t.exposeString('email'),
    name: t.exposeString('name'),
    country: t.exposeString('country'),
    email_verified: t.exposeBoolean('emailVerified'),
    created_at: t.expose('createdAt', { type: 'DateTime' }),
  }),
});

builder.queryField('account', (t) =>
  t.prismaField({
    ...operation({ summary: 'Get the account', scope: 'account:read', rest: 'GET /account', area: 'account', tool: 'account_get',
      description: 'The profile of the account the credential belongs to: name, e-mail, country and when it was created.' }),
    type: 'Account',
    resolve: (query, _root, _args, ctx) => getAccount(ctx.db, query),
  }),
);
