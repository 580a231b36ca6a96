import { builder } from '../../schema/builder.ts';
import { loadedNode } from '../../schema/node-kinds.ts';
import { example, values } from '../../schema/examples.ts';
import { inputSchema } from '../../schema/input-schemas.ts';
import { dnsName } from '../../core/input-schemas.ts';
import { idOperation, pagedListQuery } from '../../schema/operation-fields.ts';
import { operationsOf, destroys } from '../../schema/operation.ts';
import { listConnection } from '../../schema/pagination.ts';
import { restTypeName } from '../../schema/rest-name.ts';
import { detachCustomDomain, setCustomDomain, verifyCustomDomain } from './custom-domains.ts';
import { hostingByIds, hostingDetail, listHosting, type HostingView, HOSTING_PROVISIONING } from './service.ts';
import { CERT_STATES, CUSTOM_DOMAIN_STATES, HOSTING_STATES } from './service.ts';
import { hostingArea } from './manifest.ts';

const op = operationsOf(hostingArea);

// Hosting accounts and their custom domains.

const HostingCustomDomain = builder
  .objectRef<NonNullable<HostingView['customDomain']>>('HostingCustomDomain')
  .implement({
    description: 'A custom domain: pending until verify finds its DNS pointing to the account, then attached.',
    fields: (t) => ({
      domain: t.exposeString('domain', { description: 'The custom domain.', ...example('shop.example.com') }),
      status: t.exposeString('status', {
        ...values(CUSTOM_DOMAIN_STATES, 'attached'),
        description: 'pending or attached.',
      }),
      attachedAt: t.expose('attachedAt', {
        type: 'DateTime',
        nullable: true,
        description: 'When verify attached it; null while pending.',
      }),
    }),
  });

export const HostingCertificate = builder.objectRef<HostingView['certificate']>('HostingCertificate').implement({
  description: 'The TLS certificate of the site.',
  fields: (t) => ({
    status: t.exposeString('status', { ...values(CERT_STATES, 'issued'), description: 'issued, pending or failed.' }),
    domains: t.exposeStringList('domains', { description: 'Names the certificate covers.' }),
    issuedAt: t.expose('issuedAt', {
      type: 'DateTime',
      nullable: true,
      description: 'When the current certificate was issued; null before the first.',
    }),
    expiresAt: t.expose('expiresAt', {
      type: 'DateTime',
      nullable: true,
      description: 'When the current certificate expires; null before the first.',
    }),
    error: t.exposeString('error', { nullable: true, description: 'Why a name was left out at the last issuance.' }),
  }),
});

// Not a list: GraphQL names it for what it is (every `*Connection` is a Relay connection);
// REST, OpenAPI and MCP keep the name they always had.
const HostingConnectionDetails = builder.objectRef<HostingView['connection']>('HostingConnectionDetails').implement({
  description: 'How to reach the account over SFTP and MySQL.',
  ...restTypeName('HostingConnection'),
  fields: (t) => ({
    host: t.exposeString('host', {
      ...example('u5d7e9f1g2h.hosting.cloud.example.com'),
      description: 'SFTP host; also the CNAME target for a custom domain.',
    }),
    ip: t.exposeString('ip', { description: 'A-record target for a custom domain.' }),
    sftpPort: t.exposeInt('sftpPort', { description: 'SFTP port.' }),
    username: t.exposeString('username', { description: 'SFTP user name.', ...example('u5d7e9f1g2h') }),
    homeDirectory: t.exposeString('homeDirectory', { description: 'The root of file-manager paths.' }),
    webRoot: t.exposeString('webRoot', { description: 'The directory the site is served from.' }),
    mysqlHost: t.exposeString('mysqlHost', { description: 'MySQL host, as the site reaches it.' }),
    mysqlPort: t.exposeInt('mysqlPort', { description: 'MySQL port.', ...example(3306) }),
    databasePrefix: t.exposeString('databasePrefix', {
      description: 'Extra databases are named <databasePrefix><suffix>.',
    }),
  }),
});

export const HostingAccount = builder.node(builder.objectRef<HostingView>('HostingAccount'), {
  ...loadedNode('HostingAccount', {
    prefix: 'hst',
    scope: 'hosting:read',
    id: { description: 'The hosting account id (hst_…).' },
    load: (ctx, ids) => hostingByIds(ctx, ids),
  }),
  description: 'A web-hosting account (scrubbed of upstream details).',
  fields: (t) => ({
    domain: t.exposeString('domain', { description: 'Primary domain.' }),
    status: t.exposeString('status', { ...values(HOSTING_STATES, 'active'), description: 'provisioning or active.' }),
    productId: t.exposeString('productId', { ...example('hosting-starter'), description: 'Hosting plan.' }),
    phpVersion: t.exposeString('phpVersion', {
      restName: 'php_version',
      description: 'PHP-FPM version the site runs.',
    }),
    ip: t.exposeString('ip', { description: 'The address the site is served from.' }),
    customDomain: t.field({
      type: HostingCustomDomain,
      nullable: true,
      description: 'The custom domain; null when none is set.',
      resolve: (h) => h.customDomain,
    }),
    certificate: t.field({
      type: HostingCertificate,
      description: 'The TLS certificate of the site.',
      resolve: (h) => h.certificate,
    }),
    connection: t.field({
      type: HostingConnectionDetails,
      description: 'SFTP and MySQL connection details.',
      resolve: (h) => h.connection,
    }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When it was ordered.' }),
    provisionedAt: t.expose('provisionedAt', {
      type: 'DateTime',
      nullable: true,
      description: 'When it became active; null while provisioning.',
    }),
  }),
});

const HostingAccountConnection = listConnection(HostingAccount);

pagedListQuery({
  name: 'hostingAccounts',
  type: HostingAccountConnection,
  list: (ctx, args) => listHosting(ctx, args),
  operation: op({
    summary: 'List hosting accounts',
    scope: 'hosting:read',
    rest: 'GET /hosting',
    tool: 'hosting_list',
    description: 'The web-hosting accounts, newest first, with connection details.',
  }),
});

idOperation({
  root: 'query',
  name: 'hostingAccount',
  type: HostingAccount,
  idDescription: 'The hosting account id.',
  run: hostingDetail,
  operation: op({
    summary: 'Get a hosting account',
    scope: 'hosting:read',
    rest: 'GET /hosting/:id',
    tool: 'hosting_get',
    description:
      'One web-hosting account with its plan, status, connection details (SFTP, MySQL, web root), custom domain and certificate.',
  }),
});

builder.mutationField('hostingCustomDomainSet', (t) =>
  t.field({
    ...op({
      summary: 'Set the custom domain',
      scope: 'hosting:write',
      refuses: [HOSTING_PROVISIONING],
      rest: 'PUT /hosting/:id/custom-domain',
      fires: ['hosting.panel.changed'],
      description:
        "Set the account's custom domain; it stays pending until verify finds its DNS pointing here (A record to the account's IP, or a CNAME). A domain not registered in this account needs the ownership TXT record the refusal names first. 400 when the domain is the primary one or used by another hosting account.",
    }),
    type: HostingAccount,
    args: {
      id: t.arg.id({ required: true, description: 'The hosting account id.' }),
      domain: t.arg.string({
        required: true,
        description: 'A domain name such as shop.example.com.',
        ...inputSchema(dnsName('domain')),
      }),
    },
    resolve: (_root, args, ctx) => setCustomDomain(ctx, args.id, args.domain),
  }),
);

idOperation({
  root: 'mutation',
  name: 'hostingCustomDomainVerify',
  type: HostingAccount,
  idDescription: 'The hosting account id.',
  run: verifyCustomDomain,
  operation: op({
    summary: 'Verify the custom domain',
    scope: 'hosting:write',
    refuses: [HOSTING_PROVISIONING],
    rest: 'POST /hosting/:id/custom-domain/verify',
    fires: ['hosting.panel.changed'],
    hints: { idempotent: true },
    description:
      "Check the custom domain's DNS again and attach it (and request its certificate) once it points to the account. 400 saying what to point where when it does not yet; 404 when no custom domain is set.",
  }),
});

idOperation({
  root: 'mutation',
  name: 'hostingCustomDomainDelete',
  type: HostingAccount,
  idDescription: 'The hosting account id.',
  run: detachCustomDomain,
  operation: op({
    summary: 'Remove the custom domain',
    scope: 'hosting:write',
    refuses: [HOSTING_PROVISIONING],
    rest: 'DELETE /hosting/:id/custom-domain',
    consequence: destroys('Detach the custom domain of hosting account {id}: the site stops answering on it.'),
    fires: ['hosting.panel.changed'],
    description:
      'Detach the custom domain from the account; the site stays on its primary domain. 404 when none is set.',
  }),
});
