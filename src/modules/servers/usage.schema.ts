import { builder } from '../../schema/builder.ts';
import { GRAPH_ONLY } from '../../schema/graph.ts';
import type { ServerStats } from '../../provider/types.ts';
import { Server, StatsCpu, StatsDisk, StatsMemory, StatsNetwork } from './schema.ts';
import { USAGE_PERIODS, serverUsage, type UsagePeriod } from './usage.ts';

// Server.usage: the server's usage over the last hour, day or week, for a console's charts on
// first load (GraphQL only; GET /servers/:id/stats answers the current minute).

const UsagePeriodEnum = builder.enumType('UsagePeriod', {
  description: 'A span of usage history, and how finely it is sampled.',
  extensions: GRAPH_ONLY,
  values: {
    HOUR: { value: 'HOUR', description: `The last hour: ${USAGE_PERIODS.HOUR.points} samples of a minute.` },
    DAY: { value: 'DAY', description: `The last 24 hours: ${USAGE_PERIODS.DAY.points} samples of 15 minutes.` },
    WEEK: { value: 'WEEK', description: `The last 7 days: ${USAGE_PERIODS.WEEK.points} samples of an hour.` },
  } as const,
});

const ServerUsageSample = builder.objectRef<ServerStats>('ServerUsageSample').implement({
  description:
    "One step of a server's usage: per-second figures averaged over the step's minutes; totals and disk space as at its last minute.",
  extensions: GRAPH_ONLY,
  fields: (t) => ({
    sampledAt: t.expose('sampledAt', { type: 'DateTime', description: 'The start of the step.' }),
    cpu: t.field({ type: StatsCpu, description: 'Processor load, averaged over the step.', resolve: (s) => s }),
    memory: t.field({ type: StatsMemory, description: 'Memory in use, averaged over the step.', resolve: (s) => s }),
    network: t.field({
      type: StatsNetwork,
      description: 'Network traffic, rates averaged over the step.',
      resolve: (s) => s,
    }),
    disk: t.field({
      type: StatsDisk,
      description: 'Disk space and throughput, rates averaged over the step.',
      resolve: (s) => s,
    }),
  }),
});

type Usage = Awaited<ReturnType<typeof serverUsage>>;
const ServerUsage = builder.objectRef<Usage>('ServerUsage').implement({
  description: "A server's usage over a period, oldest sample first.",
  extensions: GRAPH_ONLY,
  fields: (t) => ({
    period: t.field({ type: UsagePeriodEnum, description: 'The period asked for.', resolve: (u) => u.period }),
    step: t.exposeInt('step', { description: 'Seconds each sample covers (60, 900 or 3,600).' }),
    from: t.expose('from', { type: 'DateTime', description: 'The start of the first sample.' }),
    to: t.expose('to', { type: 'DateTime', description: 'When the usage was read: the last sample covers up to now.' }),
    samples: t.field({
      type: [ServerUsageSample],
      description:
        'One sample a step. Zero before the server was provisioned; zero CPU, memory and rates while it was not running.',
      resolve: (u) => u.samples,
    }),
  }),
});

builder.prismaObjectFields(Server, (t) => ({
  usage: t.field({
    type: ServerUsage,
    extensions: GRAPH_ONLY,
    description:
      'CPU, memory, network and disk usage over the last hour, day or week, as the datacenter reports it: the same per-minute figures as serverStats, averaged over each step (GraphQL only).',
    args: {
      period: t.arg({
        type: UsagePeriodEnum,
        required: true,
        defaultValue: 'HOUR',
        description: 'How far back: HOUR (the default), DAY or WEEK.',
      }),
    },
    resolve: (server, args, ctx) => serverUsage(ctx, server, args.period as UsagePeriod),
  }),
}));
