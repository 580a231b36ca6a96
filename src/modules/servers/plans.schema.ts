import { builder } from '../../schema/builder.ts';
import { wholeListQuery } from '../../schema/operation-fields.ts';
import { example, values } from '../../schema/examples.ts';
import { operationsOf, spends } from '../../schema/operation.ts';
import { listConnection } from '../../schema/pagination.ts';
import { POOL_SERVER_HAS_NO_PLAN } from './actions.ts';
import { changePlan, planOptions, quotePlanChange, SERVER_PLAN_RETIRED } from './plans.ts';
import { INOPERABLE_409, SERVER_BUSY, SERVER_SETTLES } from './server-row.ts';
import { PLAN_FAMILIES } from '../../db/catalogue-seed.ts';
import { serversArea } from './manifest.ts';

const op = operationsOf(serversArea);

// A server's plan: the plans it can switch to in place, and the switch.

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

const PlanOptionConnection = listConnection(PlanOption);

wholeListQuery<{ id: string }>({
  name: 'serverPlanOptions',
  type: PlanOptionConnection,
  args: (t) => ({ id: t.arg.id({ required: true, description: 'The server id.' }) }),
  list: (ctx, args) => planOptions(ctx.db, args.id),
  operation: op({
    summary: 'List plan options',
    scope: 'servers:read',
    refuses: [POOL_SERVER_HAS_NO_PLAN, SERVER_PLAN_RETIRED],
    rest: 'GET /servers/:id/plan-options',
    description:
      'The current plan and the plans a server can switch to in place (same family and disk size), cheapest first. 409 for a server inside a pool: it has no plan of its own.',
  }),
});

builder.mutationField('serverChangePlan', (t) =>
  t.prismaField({
    ...op({
      summary: 'Change a server plan',
      scope: 'servers:write',
      refuses: [POOL_SERVER_HAS_NO_PLAN, SERVER_PLAN_RETIRED, SERVER_BUSY],
      rest: 'POST /servers/:id/change-plan',
      settles: SERVER_SETTLES,
      consequence: spends((ctx, a) => quotePlanChange(ctx, String(a.id), String(a.productId))),
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
