import { queryFromInfo } from '@pothos/plugin-prisma';
import { builder } from '../../schema/builder.ts';
import { example, values } from '../../schema/examples.ts';
import { inputSchema } from '../../schema/input-schemas.ts';
import { prismaNodeOptions } from '../../schema/node-kinds.ts';
import { idOperation, pagedListQuery } from '../../schema/operation-fields.ts';
import { operationsOf, destroys, spends } from '../../schema/operation.ts';
import { listConnection } from '../../schema/pagination.ts';
import { INOPERABLE_409, SERVER_BUSY, SERVER_LABEL_RULES, SERVER_SETTLES, SERVER_STATES } from './server-row.ts';
import { orderServerForCustomer, quoteServerOrder } from './order.ts';
import { serverOrderCatalogue } from '../catalogue/service.ts';
import { readServer, SERVER_RELATIONS } from './server-reads.ts';
import {
  listServers,
  powerServer,
  reinstallServer,
  serverStats,
  terminateServer,
  PRESERVED_POOL_SERVER,
  REBOOT_NEEDS_RUNNING,
} from './service.ts';
import { OS_FAMILIES } from '../../db/catalogue-seed.ts';
import { POWER_ACTIONS } from '../../provider/types.ts';
import { SSH_KEY_RULES } from '../account/ssh-keys.ts';
// The servers area's other GraphQL fields, one file per part of the product.
import './snapshots.schema.ts';
import './network.schema.ts';
import './plans.schema.ts';
import './access.schema.ts';
import './addons.schema.ts';
import { serversArea } from './manifest.ts';

const op = operationsOf(serversArea);

// Servers: reading them, power, usage, reinstalling and terminating.

// Upstream details (node, upstream id, provisioning log) live in ProviderServer and are never exposed.
export const Server = builder.prismaNode('Server', {
  ...prismaNodeOptions('Server', {
    prefix: 'srv',
    scope: 'servers:read',
    id: { description: 'The server id (srv_…).' },
    find: (ctx, id) => ctx.db.server.findUnique({ where: { id } }),
    // A terminated server reads as missing, as everywhere in the API.
    visible: (row) => row.status !== 'terminated',
  }),
  description: 'A cloud server.',
  fields: (t) => ({
    label: t.exposeString('label', {
      description:
        'Your name for the server, also its host name: 1 to 64 letters, digits, dots, hyphens and underscores.',
    }),
    status: t.exposeString('status', {
      ...values(SERVER_STATES, 'running'),
      description: 'provisioning, running, stopped, rebooting, restoring, reinstalling or suspended.',
    }),
    productId: t.exposeString('productId', { description: 'The server plan, from the catalogue.' }),
    vcpu: t.exposeInt('vcpu', { description: 'vCPU cores.' }),
    ramMb: t.exposeInt('ramMb', { description: 'RAM in MB.' }),
    diskGb: t.exposeInt('diskGb', { description: 'Disk size in GB.' }),
    os: t.exposeString('os', { ...values(OS_FAMILIES), description: 'OS family: linux or windows.' }),
    osTemplate: t.exposeString('osTemplate', { description: 'The OS template installed.' }),
    suspendReason: t.exposeString('suspendReason', {
      nullable: true,
      description: 'Why the server is suspended; null unless it is.',
    }),
    poolId: t.exposeString('poolId', {
      nullable: true,
      description: 'The capacity pool the server lives in; null for a standalone server.',
    }),
    renewsAt: t.expose('paidUntil', {
      type: 'DateTime',
      nullable: true,
      description: 'End of the paid-up period (null inside a pool: it renews with the pool).',
    }),
    // The relations as server-reads.ts loads them in one statement for the hot reads.
    ips: t.relation('ips', { query: SERVER_RELATIONS.ips, description: 'Its addresses, the primary first.' }),
    snapshots: t.relation('snapshots', {
      query: SERVER_RELATIONS.snapshots,
      description: 'Restore points, newest first.',
    }),
    addons: t.relation('addons', { query: SERVER_RELATIONS.addons, description: 'Add-ons attached now.' }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When the server was ordered.' }),
    provisionedAt: t.expose('provisionedAt', {
      type: 'DateTime',
      nullable: true,
      description: 'When provisioning finished; null until then.',
    }),
  }),
});

const ServerConnection = listConnection(Server);

pagedListQuery({
  name: 'servers',
  type: ServerConnection,
  list: (ctx, args, info) => listServers(ctx.db, args, queryFromInfo({ context: ctx, info, path: ['nodes'] })),
  operation: op({
    summary: 'List servers',
    scope: 'servers:read',
    rest: 'GET /servers',
    toolVerb: 'list',
    description: 'The servers of the account, newest first, each with its IPs, snapshots and add-ons.',
  }),
});

builder.queryField('server', (t) =>
  t.prismaField({
    ...op({
      summary: 'Get a server',
      scope: 'servers:read',
      rest: 'GET /servers/:id',
      toolVerb: 'get',
      description: 'One server with its IPs, snapshots and attached add-ons.',
    }),
    type: 'Server',
    args: { id: t.arg.id({ required: true, description: 'The server id.' }) },
    resolve: (query, _root, args, ctx) => readServer(ctx.db, args.id, query),
  }),
);

const PowerAction = builder.enumType('PowerAction', { values: POWER_ACTIONS });

builder.mutationField('serverPower', (t) =>
  t.prismaField({
    ...op({
      summary: 'Power a server',
      scope: 'servers:write',
      refuses: [SERVER_BUSY, REBOOT_NEEDS_RUNNING, PRESERVED_POOL_SERVER],
      rest: 'POST /servers/:id/power/:action',
      settles: SERVER_SETTLES,
      consequence: destroys((a) =>
        a.action === 'start'
          ? null
          : `${a.action === 'stop' ? 'Stop' : 'Reboot'} server ${a.id}: a hard ${a.action}, so what its memory holds and was not saved is lost.`,
      ),
      description: `Start, stop or reboot a server. A reboot holds the server in \`rebooting\` for a moment. Only a running server can be rebooted, and a server preserved from a deleted pool cannot be started. ${INOPERABLE_409}`,
      fires: ['server.power.changed'],
    }),
    type: 'Server',
    args: {
      id: t.arg.id({ required: true, description: 'The server id.' }),
      action: t.arg({ type: PowerAction, required: true, description: 'start, stop or reboot.' }),
    },
    resolve: (query, _root, args, ctx) => powerServer(ctx, args.id, args.action, query),
  }),
);

const ServerTermination = builder
  .objectRef<{ id: string; status: string; terminatedAt: Date }>('ServerTermination')
  .implement({
    description: 'A terminated server.',
    fields: (t) => ({
      id: t.exposeID('id', { description: 'The server id.' }),
      status: t.exposeString('status', { ...values(['terminated']), description: 'Always terminated.' }),
      terminatedAt: t.expose('terminatedAt', { type: 'DateTime', description: 'When it was terminated.' }),
    }),
  });

idOperation({
  root: 'mutation',
  name: 'serverTerminate',
  type: ServerTermination,
  idDescription: 'The server id.',
  run: terminateServer,
  operation: op({
    summary: 'Terminate a server',
    scope: 'servers:destroy',
    rest: 'DELETE /servers/:id',
    consequence: destroys(
      'Terminate server {id}: its disk, snapshots and addresses are destroyed; this cannot be undone.',
    ),
    description:
      'Terminate a server permanently: disk, snapshots and addresses are destroyed and the server leaves the account. Cannot be undone.',
    fires: ['server.terminated'],
  }),
});

type Stats = Awaited<ReturnType<typeof serverStats>>;
/** What the figure types below read: a live sample (serverStats) or a step of Server.usage. */
type Figures = Omit<Stats, 'serverId' | 'status'>;
const ServerStats = builder.objectRef<Stats>('ServerStats').implement({
  description: 'Live usage of a server, sampled once a minute. Zero CPU, memory and rates while it is not running.',
  fields: (t) => ({
    serverId: t.exposeString('serverId', { description: 'The server sampled.' }),
    status: t.exposeString('status', {
      ...values(SERVER_STATES, 'running'),
      description: 'The server status when sampled.',
    }),
    sampledAt: t.expose('sampledAt', { type: 'DateTime', description: 'When the sample was taken.' }),
    cpu: t.field({ type: StatsCpu, description: 'Processor load.', resolve: (s) => s }),
    memory: t.field({ type: StatsMemory, description: 'Memory in use.', resolve: (s) => s }),
    network: t.field({ type: StatsNetwork, description: 'Network traffic.', resolve: (s) => s }),
    disk: t.field({ type: StatsDisk, description: 'Disk space and throughput.', resolve: (s) => s }),
  }),
});
export const StatsCpu = builder.objectRef<Figures>('ServerStatsCpu').implement({
  fields: (t) => ({ percent: t.exposeFloat('cpuPercent', { description: 'Average over the minute, 0 to 100.' }) }),
});
export const StatsMemory = builder.objectRef<Figures>('ServerStatsMemory').implement({
  fields: (t) => ({
    usedMb: t.exposeInt('memoryUsedMb', { description: 'Memory in use, in MB.' }),
    totalMb: t.exposeInt('memoryTotalMb', { description: 'Memory of the plan, in MB.' }),
  }),
});
export const StatsNetwork = builder.objectRef<Figures>('ServerStatsNetwork').implement({
  fields: (t) => ({
    rxBytesPerSecond: t.exposeInt('networkRxBytesPerSecond', {
      description: 'Bytes received per second, over the last minute.',
    }),
    txBytesPerSecond: t.exposeInt('networkTxBytesPerSecond', {
      description: 'Bytes sent per second, over the last minute.',
    }),
    rxBytesTotal: t.float({ resolve: (s) => s.networkRxBytesTotal, description: 'Bytes received since provisioning.' }),
    txBytesTotal: t.float({ resolve: (s) => s.networkTxBytesTotal, description: 'Bytes sent since provisioning.' }),
  }),
});
export const StatsDisk = builder.objectRef<Figures>('ServerStatsDisk').implement({
  fields: (t) => ({
    usedGb: t.exposeFloat('diskUsedGb', { description: 'Disk space in use, in GB.' }),
    totalGb: t.exposeInt('diskTotalGb', { description: 'Disk size, in GB.' }),
    readBytesPerSecond: t.exposeInt('diskReadBytesPerSecond', {
      description: 'Bytes read per second, over the last minute.',
    }),
    writeBytesPerSecond: t.exposeInt('diskWriteBytesPerSecond', {
      description: 'Bytes written per second, over the last minute.',
    }),
  }),
});

idOperation({
  root: 'query',
  name: 'serverStats',
  type: ServerStats,
  idDescription: 'The server id.',
  run: serverStats,
  operation: op({
    summary: 'Get server usage',
    scope: 'servers:read',
    rest: 'GET /servers/:id/stats',
    description: 'Live CPU, memory, network and disk usage of a server, sampled now.',
  }),
});

builder.mutationField('serverReinstall', (t) =>
  t.prismaField({
    ...op({
      summary: 'Reinstall a server',
      scope: 'servers:destroy',
      refuses: [SERVER_BUSY],
      rest: 'POST /servers/:id/reinstall',
      settles: SERVER_SETTLES,
      consequence: destroys(
        'Reinstall server {id} from {osTemplate}: its disk is wiped; every file, the root password and the SSH keys on it are lost.',
      ),
      description: `Wipe the disk and rebuild the server from an OS template; all data, the root password and the SSH keys are replaced. The server is \`reinstalling\` until done. Servers inside a pool run Linux only. ${INOPERABLE_409}`,
      fires: ['server.reinstalled'],
    }),
    type: 'Server',
    args: {
      id: t.arg.id({ required: true, description: 'The server id.' }),
      osTemplate: t.arg.string({
        required: true,
        description: 'OS template id from the catalogue, e.g. ubuntu-24.04.',
      }),
      os: t.arg.string({
        required: false,
        description: 'OS family (linux or windows); must match the template when given.',
      }),
      sshKeyIds: t.arg.idList({
        required: false,
        description: "Account SSH key ids (ssh_…) for root's authorized_keys; Linux only.",
        ...inputSchema(SSH_KEY_RULES.ids),
      }),
    },
    resolve: (query, _root, args, ctx) =>
      reinstallServer(ctx, args.id, { osTemplate: args.osTemplate, os: args.os, sshKeyIds: args.sshKeyIds }, query),
  }),
);

// Ordering a standalone server (API 1.16): in the `purchases` MCP toolset, which spends the
// account's money and so is offered only when a client asks for it.

type Ordered = Awaited<ReturnType<typeof orderServerForCustomer>>;

const ServerOrder = builder.objectRef<Ordered>('ServerOrder').implement({
  description: 'A server ordered on its own: the server, provisioning, and what its first month cost.',
  fields: (t) => ({
    server: t.field({ type: Server, description: 'The new server (`provisioning`).', resolve: (o) => o.server }),
    invoiceId: t.exposeString('invoiceId', {
      description: 'The invoice of the first month, paid from the wallet (inv_…).',
      ...example('inv_01hzx4e2a0b1c2d3e4f5g6h7j8'),
    }),
    chargedUsdCents: t.exposeInt('chargedUsdCents', {
      description: "What the wallet was charged: the plan's monthly price, in US cents.",
    }),
  }),
});

builder.mutationField('serverOrder', (t) =>
  t.field({
    ...op({
      summary: 'Order a server',
      scope: 'servers:write',
      rest: 'POST /servers',
      settles: { ...SERVER_SETTLES, at: 'server' },
      consequence: spends((ctx, a) =>
        quoteServerOrder(ctx, { productId: a.productId, os: a.os ?? undefined, osTemplate: a.osTemplate }),
      ),
      toolset: 'purchases',
      description:
        'Order a standalone server: a plan of the catalogue (its monthly price is in GET /servers/:id/plan-options and the catalogue), an OS template and a label. The first month is invoiced and paid from the wallet at once (400 and nothing ordered when the balance is short); the server renews monthly from the wallet. It is `provisioning`, then `running`.',
      fires: ['server.created', 'invoice.created', 'invoice.paid'],
    }),
    type: ServerOrder,
    args: {
      productId: t.arg.string({ required: true, description: 'A server plan of the catalogue (std-1c-2g-50).' }),
      label: t.arg.string({
        required: true,
        description: 'A name for the server, also its host name.',
        ...inputSchema(SERVER_LABEL_RULES),
      }),
      os: t.arg.string({ required: false, description: 'OS family; must match the template when given.' }),
      osTemplate: t.arg.string({ required: true, description: 'An OS template of the catalogue.' }),
      sshKeyIds: t.arg.idList({
        required: false,
        description: "Account SSH key ids (ssh_…) for root's authorized_keys; Linux only.",
        ...inputSchema(SSH_KEY_RULES.ids),
      }),
    },
    resolve: (_root, args, ctx, info) =>
      orderServerForCustomer(
        ctx,
        {
          productId: args.productId,
          label: args.label,
          os: args.os ?? undefined,
          osTemplate: args.osTemplate,
          sshKeyIds: args.sshKeyIds,
        },
        queryFromInfo({ context: ctx, info, typeName: 'Server', path: ['server'] }),
      ),
  }),
);

type OrderCatalogue = Awaited<ReturnType<typeof serverOrderCatalogue>>;

const ServerPlan = builder.objectRef<OrderCatalogue['plans'][number]>('ServerPlan').implement({
  description: 'A server plan a standalone server can be ordered on.',
  fields: (t) => ({
    productId: t.exposeString('productId', { description: 'The plan; pass it to serverOrder (POST /servers).' }),
    family: t.exposeString('family', { description: 'std (standard) or cpu (CPU-optimised).' }),
    name: t.exposeString('name', { description: 'Display name.', ...example('Standard 2 vCPU / 4 GB / 50 GB') }),
    vcpu: t.exposeInt('vcpu', { description: 'vCPU cores.' }),
    ramMb: t.exposeInt('ramMb', { description: 'RAM in MB.' }),
    diskGb: t.exposeInt('diskGb', { description: 'Disk size in GB.' }),
    monthlyUsdCents: t.exposeInt('monthlyUsdCents', {
      description: 'Monthly price in US cents: what the first month costs.',
    }),
  }),
});

const OsTemplate = builder.objectRef<OrderCatalogue['osTemplates'][number]>('OsTemplate').implement({
  description: 'An operating system image a server is installed from.',
  fields: (t) => ({
    id: t.exposeString('id', { description: 'Pass it as osTemplate.', ...example('ubuntu-24.04') }),
    os: t.exposeString('os', { ...values(OS_FAMILIES), description: 'OS family.' }),
    name: t.exposeString('name', { description: 'Display name.', ...example('Ubuntu 24.04 LTS') }),
  }),
});

const ServerCatalogue = builder.objectRef<OrderCatalogue>('ServerCatalogue').implement({
  description: 'What a standalone server is ordered from.',
  fields: (t) => ({
    plans: t.field({ type: [ServerPlan], description: 'Server plans with their prices.', resolve: (c) => c.plans }),
    osTemplates: t.field({ type: [OsTemplate], description: 'OS templates.', resolve: (c) => c.osTemplates }),
  }),
});

builder.queryField('serverCatalogue', (t) =>
  t.field({
    ...op({
      summary: 'List server plans and images',
      scope: 'servers:read',
      rest: 'GET /servers/catalogue',
      tool: 'servers_catalogue',
      toolset: 'purchases',
      description:
        'The plans a standalone server can be ordered on, with their monthly prices in cents, and the OS templates to install: what POST /servers takes.',
    }),
    type: ServerCatalogue,
    resolve: (_root, _args, ctx) => serverOrderCatalogue(ctx.db),
  }),
);
