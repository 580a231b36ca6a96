import { queryFromInfo } from '@pothos/plugin-prisma';
import { builder } from '../../schema/builder.ts';
import { Deleted } from '../../schema/deleted.ts';
import { example, values } from '../../schema/examples.ts';
import { GRAPH_ONLY, Node } from '../../schema/graph.ts';
import { rules } from '../../schema/input-rules.ts';
import { HOST_NAME_RULES } from '../../core/input-rules.ts';
import { idOperation, pagedListQuery } from '../../schema/operation-fields.ts';
import { operation } from '../../schema/operation.ts';
import { listType } from '../../schema/pagination.ts';
import { wholeList } from '../../core/paging.ts';
import { attachAddon, detachAddon, listServerAddons } from './addons.ts';
import { listServerIps, setPtr } from './network.ts';
import { changePlan, planOptions, POOL_SERVER_HAS_NO_PLAN, SERVER_PLAN_RETIRED } from './plans.ts';
import { INOPERABLE_409, LABEL_RULES, SERVER_BUSY, SERVER_STATES } from './server-row.ts';
import { readServer, SERVER_RELATIONS } from './server-reads.ts';
import {
  listServers,
  powerServer,
  reinstallServer,
  resetRootPassword,
  serverStats,
  terminateServer,
  PASSWORD_NEEDS_RUNNING,
  PRESERVED_POOL_SERVER,
  REBOOT_NEEDS_RUNNING,
} from './service.ts';
import {
  createSnapshot,
  deleteSnapshot,
  listSnapshots,
  revertSnapshot,
  SNAPSHOT_NOT_AVAILABLE,
  SNAPSHOT_STATES,
} from './snapshots.ts';
import { createSsoLink } from './sso.ts';
import { ADDON_TYPES, OS_FAMILIES, PLAN_FAMILIES } from '../../db/catalogue-seed.ts';

const ServerIp = builder.prismaObject('ServerIp', {
  description: 'An address routed to a server, with its reverse DNS record.',
  interfaces: [Node],
  fields: (t) => ({
    // REST names an address by itself (/servers/:id/ips/:ip): the id is the graph's alone.
    id: t.exposeID('id', { extensions: GRAPH_ONLY, description: 'Global id of the address record (ip_…).' }),
    ip: t.exposeString('address', { description: 'The IPv4 or IPv6 address.' }),
    version: t.exposeInt('version', { description: 'IP version: 4 or 6.', ...example(4) }),
    ptr: t.exposeString('ptr', { nullable: true, description: 'Reverse DNS (PTR) name; null when none is set.' }),
    zoneHosted: t.exposeBoolean('zoneHosted', {
      description: 'False when the reverse zone is not hosted here: the PTR cannot be managed.',
    }),
    primary: t.exposeBoolean('isPrimary', { description: "True for the server's main address." }),
  }),
});

// Upstream details (node, upstream id, provisioning log) live in ProviderServer and are never exposed.
export const Server = builder.prismaObject('Server', {
  description: 'A cloud server.',
  interfaces: [Node],
  fields: (t) => ({
    id: t.exposeID('id', { description: 'The server id (srv_…).' }),
    label: t.exposeString('label', { description: 'Your name for the server, 1 to 64 characters.' }),
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

// An add-on attached to a server (the catalogue view of add-ons is ServerAddon below).
builder.prismaObject('ServerAddon', {
  name: 'AttachedAddon',
  description: 'An add-on attached to a server.',
  interfaces: [Node],
  fields: (t) => ({
    id: t.exposeID('id', { description: 'The attachment id (sad_…).' }),
    addonId: t.exposeString('productId', { description: 'The catalogue add-on (the :addonId of the API).' }),
    type: t.exposeString('type', {
      ...values(ADDON_TYPES, 'extra_ip'),
      description: 'extra_ip, ip_block_24, seo_ip_pack or backups.',
    }),
    monthlyUsdCents: t.exposeInt('monthlyUsdCents', { description: 'Monthly price in US cents.' }),
    attachedAt: t.expose('createdAt', { type: 'DateTime', description: 'When it was attached.' }),
  }),
});

const ServerList = listType('ServerList', Server);

pagedListQuery(
  'servers',
  ServerList,
  (ctx, args, info) => listServers(ctx.db, args, queryFromInfo({ context: ctx, info, path: ['data'] })),
  {
    summary: 'List servers',
    scope: 'servers:read',
    rest: 'GET /servers',
    area: 'servers',
    tool: 'servers_list',
    description: 'The servers of the account, newest first, each with its IPs, snapshots and add-ons.',
  },
);

builder.queryField('server', (t) =>
  t.prismaField({
    ...operation({
      summary: 'Get a server',
      scope: 'servers:read',
      rest: 'GET /servers/:id',
      area: 'servers',
      tool: 'server_get',
      description: 'One server with its IPs, snapshots and attached add-ons. 404 when it is not on the account.',
    }),
    type: 'Server',
    args: { id: t.arg.id({ required: true, description: 'The server id.' }) },
    resolve: (query, _root, args, ctx) => readServer(ctx.db, args.id, query),
  }),
);

const PowerAction = builder.enumType('PowerAction', { values: ['start', 'stop', 'reboot'] as const });

builder.mutationField('serverPower', (t) =>
  t.prismaField({
    ...operation({
      summary: 'Power a server',
      scope: 'servers:write',
      refuses: [SERVER_BUSY, REBOOT_NEEDS_RUNNING, PRESERVED_POOL_SERVER],
      rest: 'POST /servers/:id/power/:action',
      area: 'servers',
      tool: 'server_power',
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

const Snapshot = builder.prismaObject('Snapshot', {
  description: 'A restore point of a server disk.',
  interfaces: [Node],
  fields: (t) => ({
    id: t.exposeID('id', { description: 'The snapshot id (snap_…).' }),
    serverId: t.exposeString('serverId', { description: 'The server whose disk it holds.' }),
    name: t.exposeString('name', { description: 'Your name for it, 1 to 64 characters.' }),
    description: t.exposeString('description', {
      description: 'Your note on it, at most 500 characters ("" when none).',
    }),
    status: t.exposeString('status', {
      ...values(SNAPSHOT_STATES, 'available'),
      description: 'creating or available.',
    }),
    sizeGb: t.exposeInt('sizeGb', { description: 'Size of the disk image in GB.' }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When it was taken.' }),
  }),
});

const SnapshotList = listType('SnapshotList', Snapshot);

builder.queryField('serverSnapshots', (t) =>
  t.field({
    ...operation({
      summary: 'List snapshots',
      scope: 'servers:read',
      rest: 'GET /servers/:id/snapshots',
      area: 'servers',
      tool: 'server_snapshots_list',
      description: 'The snapshots (restore points) of a server, newest first, whole.',
    }),
    type: SnapshotList,
    args: { id: t.arg.id({ required: true, description: 'The server id.' }) },
    resolve: async (_root, args, ctx, info) =>
      wholeList(await listSnapshots(ctx.db, args.id, queryFromInfo({ context: ctx, info, path: ['data'] }))),
  }),
);

builder.mutationField('serverSnapshotCreate', (t) =>
  t.prismaField({
    ...operation({
      summary: 'Take a snapshot',
      scope: 'servers:write',
      refuses: [SERVER_BUSY],
      rest: 'POST /servers/:id/snapshots',
      area: 'servers',
      tool: 'server_snapshot_create',
      description: `Take a snapshot of the server disk; it is \`creating\`, then \`available\`. A server keeps at most 10 snapshots (400 beyond: delete one first). ${INOPERABLE_409}`,
    }),
    type: 'Snapshot',
    args: {
      id: t.arg.id({ required: true, description: 'The server id.' }),
      name: t.arg.string({ required: true, description: '1 to 64 characters.', ...rules(LABEL_RULES) }),
      description: t.arg.string({
        required: false,
        description: 'At most 500 characters.',
        ...rules({ maxLength: 500 }),
      }),
    },
    resolve: (query, _root, args, ctx) =>
      createSnapshot(ctx, args.id, { name: args.name, description: args.description }, query),
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

idOperation(
  'mutation',
  'serverTerminate',
  ServerTermination,
  'The server id.',
  terminateServer,
  operation({
    summary: 'Terminate a server',
    scope: 'servers:destroy',
    rest: 'DELETE /servers/:id',
    area: 'servers',
    tool: 'server_terminate',
    description:
      'Terminate a server permanently: disk, snapshots and addresses are destroyed and the server leaves the account. Cannot be undone.',
    fires: ['server.terminated'],
  }),
);

type Stats = Awaited<ReturnType<typeof serverStats>>;
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
const StatsCpu = builder.objectRef<Stats>('ServerStatsCpu').implement({
  fields: (t) => ({ percent: t.exposeFloat('cpuPercent', { description: 'Average over the minute, 0 to 100.' }) }),
});
const StatsMemory = builder.objectRef<Stats>('ServerStatsMemory').implement({
  fields: (t) => ({
    usedMb: t.exposeInt('memoryUsedMb', { description: 'Memory in use, in MB.' }),
    totalMb: t.exposeInt('memoryTotalMb', { description: 'Memory of the plan, in MB.' }),
  }),
});
const StatsNetwork = builder.objectRef<Stats>('ServerStatsNetwork').implement({
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
const StatsDisk = builder.objectRef<Stats>('ServerStatsDisk').implement({
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

idOperation(
  'query',
  'serverStats',
  ServerStats,
  'The server id.',
  serverStats,
  operation({
    summary: 'Get server usage',
    scope: 'servers:read',
    rest: 'GET /servers/:id/stats',
    area: 'servers',
    tool: 'server_stats',
    description: 'Live CPU, memory, network and disk usage of a server, sampled now.',
  }),
);

builder.mutationField('serverSnapshotDelete', (t) =>
  t.field({
    ...operation({
      summary: 'Delete a snapshot',
      scope: 'servers:write',
      rest: 'DELETE /servers/:id/snapshots/:snapshotId',
      area: 'servers',
      tool: 'server_snapshot_delete',
      description: 'Delete a snapshot; the live disk is not touched.',
    }),
    type: Deleted,
    args: {
      id: t.arg.id({ required: true, description: 'The server id.' }),
      snapshotId: t.arg.id({ required: true, description: 'The snapshot id.' }),
    },
    resolve: (_root, args, ctx) => deleteSnapshot(ctx, args.id, args.snapshotId),
  }),
);

builder.mutationField('serverSnapshotRevert', (t) =>
  t.prismaField({
    ...operation({
      summary: 'Revert to a snapshot',
      scope: 'servers:destroy',
      refuses: [SERVER_BUSY, SNAPSHOT_NOT_AVAILABLE],
      rest: 'POST /servers/:id/snapshots/:snapshotId/revert',
      area: 'servers',
      tool: 'server_snapshot_revert',
      description: `Roll the live disk back to a snapshot: everything written since is lost. The server is \`restoring\` for about a minute, then back to its former state. 409 when the snapshot is not \`available\` yet. ${INOPERABLE_409}`,
    }),
    type: 'Server',
    args: {
      id: t.arg.id({ required: true, description: 'The server id.' }),
      snapshotId: t.arg.id({ required: true, description: 'The snapshot id.' }),
    },
    resolve: (query, _root, args, ctx) => revertSnapshot(ctx, args.id, args.snapshotId, query),
  }),
);

builder.mutationField('serverReinstall', (t) =>
  t.prismaField({
    ...operation({
      summary: 'Reinstall a server',
      scope: 'servers:destroy',
      refuses: [SERVER_BUSY],
      rest: 'POST /servers/:id/reinstall',
      area: 'servers',
      tool: 'server_reinstall',
      description: `Wipe the disk and rebuild the server from an OS template; all data and the root password are replaced. The server is \`reinstalling\` until done. Servers inside a pool run Linux only. ${INOPERABLE_409}`,
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
    },
    resolve: (query, _root, args, ctx) =>
      reinstallServer(ctx, args.id, { osTemplate: args.osTemplate, os: args.os }, query),
  }),
);

const ServerIpList = listType('ServerIpList', ServerIp);

builder.queryField('serverIps', (t) =>
  t.field({
    ...operation({
      summary: 'List server IPs',
      scope: 'servers:read',
      rest: 'GET /servers/:id/ips',
      area: 'servers',
      tool: 'server_ips_list',
      description: 'Every IP address of a server with its PTR (reverse DNS) record, whole.',
    }),
    type: ServerIpList,
    args: { id: t.arg.id({ required: true, description: 'The server id.' }) },
    resolve: async (_root, args, ctx, info) =>
      wholeList(await listServerIps(ctx.db, args.id, queryFromInfo({ context: ctx, info, path: ['data'] }))),
  }),
);

builder.mutationField('serverPtrSet', (t) =>
  t.prismaField({
    ...operation({
      summary: 'Set a PTR record',
      scope: 'servers:write',
      rest: 'PUT /servers/:id/ips/:ip/ptr',
      area: 'servers',
      tool: 'server_ptr_set',
      description:
        "Set the PTR (reverse DNS) record of one of the server's addresses; setting the same name again changes nothing. 400 when the address's reverse zone is not hosted here (zoneHosted false).",
      fires: ['server.ptr.changed'],
    }),
    type: 'ServerIp',
    args: {
      id: t.arg.id({ required: true, description: 'The server id.' }),
      ip: t.arg.string({ required: true, description: "One of the server's addresses." }),
      hostname: t.arg.string({
        required: true,
        description: 'Fully qualified DNS name, e.g. mail.example.com.',
        ...rules(HOST_NAME_RULES),
      }),
    },
    resolve: (query, _root, args, ctx) => setPtr(ctx, args.id, args.ip, args.hostname, query),
  }),
);

builder.mutationField('serverPtrDelete', (t) =>
  t.prismaField({
    ...operation({
      summary: 'Remove a PTR record',
      scope: 'servers:write',
      rest: 'DELETE /servers/:id/ips/:ip/ptr',
      area: 'servers',
      tool: 'server_ptr_delete',
      description:
        "Remove the PTR (reverse DNS) record of one of the server's addresses. 400 when its reverse zone is not hosted here.",
      fires: ['server.ptr.changed'],
    }),
    type: 'ServerIp',
    args: {
      id: t.arg.id({ required: true, description: 'The server id.' }),
      ip: t.arg.string({ required: true, description: "One of the server's addresses." }),
    },
    resolve: (query, _root, args, ctx) => setPtr(ctx, args.id, args.ip, null, query),
  }),
);

const PlanOption = builder.objectRef<Awaited<ReturnType<typeof planOptions>>[number]>('PlanOption').implement({
  description: 'A server plan the server can switch to in place.',
  fields: (t) => ({
    productId: t.exposeString('productId', { description: 'The plan; pass it to change-plan.' }),
    name: t.exposeString('name', {
      ...example('Standard 1 vCPU / 2 GB / 50 GB'),
      description: 'Display name of the plan.',
    }),
    family: t.exposeString('family', {
      ...values(PLAN_FAMILIES),
      description: 'std (standard) or cpu (CPU-optimised); the same for every option.',
    }),
    vcpu: t.exposeInt('vcpu', { description: 'vCPU cores.' }),
    ramMb: t.exposeInt('ramMb', { description: 'RAM in MB.' }),
    diskGb: t.exposeInt('diskGb', { description: 'Disk size in GB; the same for every option.' }),
    monthlyUsdCents: t.exposeInt('monthlyUsdCents', { description: 'Monthly price in US cents.' }),
    current: t.exposeBoolean('current', { description: 'True for the plan the server is on.' }),
  }),
});

const PlanOptionList = listType('PlanOptionList', PlanOption);

builder.queryField('serverPlanOptions', (t) =>
  t.field({
    ...operation({
      summary: 'List plan options',
      scope: 'servers:read',
      refuses: [POOL_SERVER_HAS_NO_PLAN, SERVER_PLAN_RETIRED],
      rest: 'GET /servers/:id/plan-options',
      area: 'servers',
      tool: 'server_plan_options',
      description:
        'The current plan and the plans a server can switch to in place (same family and disk size), cheapest first. 409 for a server inside a pool: it has no plan of its own.',
    }),
    type: PlanOptionList,
    args: { id: t.arg.id({ required: true, description: 'The server id.' }) },
    resolve: async (_root, args, ctx) => wholeList(await planOptions(ctx.db, args.id)),
  }),
);

builder.mutationField('serverChangePlan', (t) =>
  t.prismaField({
    ...operation({
      summary: 'Change a server plan',
      scope: 'servers:write',
      refuses: [POOL_SERVER_HAS_NO_PLAN, SERVER_PLAN_RETIRED, SERVER_BUSY],
      rest: 'POST /servers/:id/change-plan',
      area: 'servers',
      tool: 'server_change_plan',
      description: `Switch a server to another of its plan options (vCPU and RAM); the server reboots, the disk is unchanged. 400 when productId is the current plan or not an option. ${INOPERABLE_409}`,
      fires: ['server.resized'],
    }),
    type: 'Server',
    args: {
      id: t.arg.id({ required: true, description: 'The server id.' }),
      productId: t.arg.string({ required: true, description: 'One of the plan options.' }),
    },
    resolve: (query, _root, args, ctx) => changePlan(ctx, args.id, args.productId, query),
  }),
);

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
    ...operation({
      summary: 'Sign in to the dashboard',
      scope: 'servers:read',
      rest: 'POST /servers/:id/sso',
      area: 'servers',
      tool: 'server_sso',
      notTool: 'hands out a one-time dashboard login link for a person at a browser',
      hints: { readOnly: true, destructive: false, idempotent: false },
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

const ServerAddon = builder.objectRef<Awaited<ReturnType<typeof listServerAddons>>[number]>('ServerAddon').implement({
  description: 'An add-on the server plan offers.',
  fields: (t) => ({
    id: t.exposeID('id', { description: 'The addonId.' }),
    name: t.exposeString('name', { ...example('4 extra IPv4 addresses'), description: 'Display name of the add-on.' }),
    type: t.exposeString('type', {
      ...values(ADDON_TYPES, 'extra_ip'),
      description: 'extra_ip, ip_block_24, seo_ip_pack or backups: one active add-on per type.',
    }),
    ipCount: t.exposeInt('ipCount', { description: 'IPv4 addresses it routes to the server.' }),
    active: t.exposeBoolean('active', { description: 'True when this add-on is attached to the server.' }),
    monthly_usd_cents: t.exposeInt('monthly_usd_cents', { description: 'Monthly price in US cents.' }),
    prorated_usd_cents: t.exposeInt('prorated_usd_cents', {
      description: 'What attaching it today costs: prorated to the end of the current cycle.',
    }),
    owned_by_type: t.exposeBoolean('owned_by_type', {
      description: 'An add-on of this type is already active: detach it first.',
    }),
    available: t.exposeBoolean('available', { description: 'False while it is out of stock (stock_note says why).' }),
    stock_note: t.exposeString('stock_note', {
      nullable: true,
      description: 'Why it cannot be attached now; null when in stock.',
    }),
  }),
});

const ServerAddonList = listType('ServerAddonList', ServerAddon);

builder.queryField('serverAddons', (t) =>
  t.field({
    ...operation({
      summary: 'List available add-ons',
      scope: 'servers:read',
      rest: 'GET /servers/:id/addons',
      area: 'servers',
      tool: 'server_addons_list',
      description: "The add-ons the server's plan offers, with monthly prices in cents and stock, in catalogue order.",
    }),
    type: ServerAddonList,
    args: { id: t.arg.id({ required: true, description: 'The server id.' }) },
    resolve: async (_root, args, ctx) => wholeList(await listServerAddons(ctx, args.id)),
  }),
);

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
    ...operation({
      summary: 'Attach an add-on',
      scope: 'servers:write',
      refuses: [SERVER_BUSY],
      rest: 'POST /servers/:id/addons',
      area: 'servers',
      tool: 'server_addon_attach',
      description: `Attach an add-on to a server: its price is debited from the wallet at once, prorated to the end of the billing cycle (400 when the balance does not cover it; nothing is charged). One add-on per type: detach the one attached to change tier. Servers inside a pool take addresses from the pool. ${INOPERABLE_409}`,
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
    ...operation({
      summary: 'Detach an add-on',
      scope: 'servers:write',
      rest: 'DELETE /servers/:id/addons/:addonId',
      area: 'servers',
      tool: 'server_addon_detach',
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

idOperation(
  'mutation',
  'serverPasswordReset',
  PasswordReset,
  'The server id.',
  resetRootPassword,
  operation({
    summary: 'Reset the root password',
    scope: 'servers:write',
    refuses: [SERVER_BUSY, PASSWORD_NEEDS_RUNNING],
    rest: 'POST /servers/:id/password-reset',
    area: 'servers',
    tool: 'server_password_reset',
    notTool: 'returns a root password; handing it to a model is not a safe default',
    description:
      'Set a new random root password through the guest agent and return it once. The server must be running (409 otherwise).',
  }),
);
