import { builder } from '../../schema/builder.ts';
import { wholeListQuery } from '../../schema/operation-fields.ts';
import { example, values } from '../../schema/examples.ts';
import { prismaNodeOptions } from '../../schema/node-kinds.ts';
import { operationsOf, destroys, spends } from '../../schema/operation.ts';
import { listConnection } from '../../schema/pagination.ts';
import { attachAddon, detachAddon, listServerAddons, quoteAddonAttach } from './addons.ts';
import { INOPERABLE_409, SERVER_BUSY } from './server-row.ts';
import { ADDON_TYPES } from '../../db/catalogue-seed.ts';
import { serversArea } from './manifest.ts';

const op = operationsOf(serversArea);

// Add-ons: those attached to a server, those its plan offers, attaching and detaching them.

// An add-on attached to a server (the catalogue view of add-ons is ServerAddon below).
builder.prismaNode('ServerAddon', {
  // Attached now (as Server.addons lists them): a detached one reads as missing; terminating a
  // server detaches its add-ons.
  ...prismaNodeOptions('AttachedAddon', {
    prefix: 'sad',
    scope: 'servers:read',
    id: { description: 'The attachment id (sad_…).' },
    find: (ctx, id) => ctx.db.serverAddon.findUnique({ where: { id } }),
    visible: (row) => row.endedAt === null,
  }),
  name: 'AttachedAddon',
  description: 'An add-on attached to a server.',
  fields: (t) => ({
    addonId: t.exposeString('productId', { description: 'The catalogue add-on (the :addonId of the API).' }),
    type: t.exposeString('type', {
      ...values(ADDON_TYPES, 'extra_ip'),
      description: 'extra_ip, ip_block_24, seo_ip_pack or backups.',
    }),
    monthlyUsdCents: t.exposeInt('monthlyUsdCents', { description: 'Monthly price in US cents.' }),
    attachedAt: t.expose('createdAt', { type: 'DateTime', description: 'When it was attached.' }),
  }),
});

const ServerAddon = builder.objectRef<Awaited<ReturnType<typeof listServerAddons>>[number]>('ServerAddon').implement({
  description: 'An add-on the server plan offers.',
  restCase: 'snake',
  fields: (t) => ({
    id: t.exposeID('id', { description: 'The addonId.' }),
    name: t.exposeString('name', { ...example('4 extra IPv4 addresses'), description: 'Display name of the add-on.' }),
    type: t.exposeString('type', {
      ...values(ADDON_TYPES, 'extra_ip'),
      description: 'extra_ip, ip_block_24, seo_ip_pack or backups: one active add-on per type.',
    }),
    ipCount: t.exposeInt('ipCount', { restName: 'ipCount', description: 'IPv4 addresses it routes to the server.' }),
    active: t.exposeBoolean('active', { description: 'True when this add-on is attached to the server.' }),
    monthlyUsdCents: t.exposeInt('monthlyUsdCents', {
      description: 'Monthly price in US cents.',
    }),
    proratedUsdCents: t.exposeInt('proratedUsdCents', {
      description: 'What attaching it today costs: prorated to the end of the current cycle.',
    }),
    ownedByType: t.exposeBoolean('ownedByType', {
      description: 'An add-on of this type is already active: detach it first.',
    }),
    available: t.exposeBoolean('available', { description: 'False while it is out of stock (stock_note says why).' }),
    stockNote: t.exposeString('stockNote', {
      nullable: true,
      description: 'Why it cannot be attached now; null when in stock.',
    }),
  }),
});

const ServerAddonConnection = listConnection(ServerAddon);

wholeListQuery<{ id: string }>({
  name: 'serverAddons',
  type: ServerAddonConnection,
  args: (t) => ({ id: t.arg.id({ required: true, description: 'The server id.' }) }),
  list: (ctx, args) => listServerAddons(ctx, args.id),
  operation: op({
    summary: 'List available add-ons',
    scope: 'servers:read',
    rest: 'GET /servers/:id/addons',
    toolVerb: 'list',
    description: "The add-ons the server's plan offers, with monthly prices in cents and stock, in catalogue order.",
  }),
});

const AddonAttachment = builder.objectRef<Awaited<ReturnType<typeof attachAddon>>>('ServerAddonAttachment').implement({
  description: 'An add-on attached to a server and what it cost now.',
  fields: (t) => ({
    id: t.exposeID('id', { description: 'The addonId.' }),
    serverId: t.exposeString('serverId', { description: 'The server it is attached to.' }),
    type: t.exposeString('type', {
      ...values(ADDON_TYPES, 'extra_ip'),
      description: 'extra_ip, ip_block_24, seo_ip_pack or backups.',
    }),
    name: t.exposeString('name', { ...example('4 extra IPv4 addresses'), description: 'Display name of the add-on.' }),
    monthlyUsdCents: t.exposeInt('monthlyUsdCents', {
      description: 'Monthly price in US cents, billed with the server from its next renewal.',
    }),
    chargedUsdCents: t.exposeInt('chargedUsdCents', { description: 'Debited from the wallet now (prorated).' }),
    transactionId: t.exposeString('transactionId', {
      nullable: true,
      description: 'The wallet transaction of the debit.',
    }),
    ips: t.exposeStringList('ips', {
      description: 'Addresses now routed to the server; configure them inside the guest OS.',
    }),
    attachedAt: t.expose('attachedAt', { type: 'DateTime', description: 'When it was attached.' }),
  }),
});

builder.mutationField('serverAddonAttach', (t) =>
  t.field({
    ...op({
      summary: 'Attach an add-on',
      scope: 'servers:write',
      refuses: [SERVER_BUSY],
      rest: 'POST /servers/:id/addons',
      consequence: spends((ctx, a) => quoteAddonAttach(ctx, String(a.id), String(a.addonId))),
      fires: ['server.addon.attached'],
      description: `Attach an add-on to a server: its price is debited from the wallet at once, prorated to the end of the billing cycle (400 when the balance does not cover it; nothing is charged). One add-on per type: detach the one attached to change tier. ${INOPERABLE_409}`,
    }),
    type: AddonAttachment,
    args: {
      id: t.arg.id({ required: true, description: 'The server id.' }),
      addonId: t.arg.string({ required: true, description: 'The catalogue add-on, from GET /servers/{id}/addons.' }),
    },
    resolve: (_root, args, ctx) => attachAddon(ctx, args.id, args.addonId),
  }),
);

const AddonDetachment = builder.objectRef<Awaited<ReturnType<typeof detachAddon>>>('ServerAddonDetachment').implement({
  description: 'An add-on detached from a server (no refund).',
  fields: (t) => ({
    id: t.exposeID('id', { description: 'The addonId.' }),
    serverId: t.exposeString('serverId', { description: 'The server it was detached from.' }),
    detached: t.exposeBoolean('detached', { description: 'Always true.' }),
    releasedIps: t.exposeStringList('releasedIps', { description: 'Addresses that stopped routing.' }),
  }),
});

builder.mutationField('serverAddonDetach', (t) =>
  t.field({
    ...op({
      summary: 'Detach an add-on',
      scope: 'servers:write',
      rest: 'DELETE /servers/:id/addons/:addonId',
      consequence: destroys(
        'Detach add-on {addonId} from server {id}: its addresses stop routing at once and nothing is refunded.',
      ),
      fires: ['server.addon.detached'],
      description: 'Detach an add-on from a server: nothing is refunded and its addresses are released at once.',
    }),
    type: AddonDetachment,
    args: {
      id: t.arg.id({ required: true, description: 'The server id.' }),
      addonId: t.arg.string({ required: true, description: 'The catalogue add-on, from GET /servers/{id}/addons.' }),
    },
    resolve: (_root, args, ctx) => detachAddon(ctx, args.id, args.addonId),
  }),
);
