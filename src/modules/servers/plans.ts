import type { TenantDb } from '../../db/tenant.ts';
import type { Tx } from '../../db/tx.ts';
import { badRequest, refusal } from '../../errors.ts';
import { recordEvent } from '../../events/outbox.ts';
import { perMonth, type Quote } from '../billing/quotes.ts';
import { getServerPlan, switchablePlans } from '../catalogue/service.ts';
import { POOL_SERVER_HAS_NO_PLAN, requireAction } from './actions.ts';
import { getServer, lockServer, type ServiceContext } from './server-row.ts';

// Plan changes: the plans a server can switch to, and the prorated switch.

export const SERVER_PLAN_RETIRED = refusal(409, 'The plan of the server is no longer in the catalogue');

async function currentPlan(
  db: Pick<Tx, 'product' | 'osTemplate'>,
  server: { productId: string; poolId: string | null },
) {
  if (server.poolId)
    throw POOL_SERVER_HAS_NO_PLAN.error(
      'A server inside a capacity pool has no plan of its own; its resources come from the pool.',
    );
  const plan = await getServerPlan(db, server.productId);
  if (!plan) throw SERVER_PLAN_RETIRED.error('The plan of this server is no longer in the catalogue.');
  return plan;
}

/** The current plan and the plans a server can switch to in place (same family, same disk), cheapest first. */
export async function planOptions(db: TenantDb, serverId: string) {
  const server = await getServer(db, serverId);
  const plan = await currentPlan(db, server);
  const plans = await switchablePlans(db, plan);
  return plans.map((p) => ({
    productId: p.id,
    name: p.name,
    family: p.family,
    vcpu: p.vcpu,
    ramMb: p.ramMb,
    diskGb: p.diskGb,
    monthlyUsdCents: p.monthlyUsdCents,
    current: p.id === server.productId,
  }));
}

/** The plan a server switches from and the one it switches to: 400 when that is no option of its. */
async function planSwitch(
  db: Pick<Tx, 'product' | 'osTemplate'>,
  server: { id: string; productId: string; poolId: string | null },
  productId: string,
) {
  const plan = await currentPlan(db, server);
  if (productId === server.productId) throw badRequest(`The server is already on ${productId}.`, 'productId');
  const target = (await switchablePlans(db, plan)).find((p) => p.id === productId && p.active);
  if (!target)
    throw badRequest(
      `productId "${productId}" is not one of this server's plan options (same family, same disk size); see GET /servers/${server.id}/plan-options.`,
      'productId',
    );
  return { plan, target };
}

/**
 * What a plan change costs (MCP asks a person with it): nothing now, the new plan's price from
 * the next renewal on (changePlan's rule, from planSwitch, the plans changePlan switches between).
 */
export async function quotePlanChange(ctx: ServiceContext, serverId: string, productId: string): Promise<Quote> {
  const server = await getServer(ctx.db, serverId);
  const { plan, target } = await planSwitch(ctx.db, server, productId);
  const renews = server.paidUntil ? ` (${server.paidUntil.toISOString().slice(0, 10)})` : '';
  return {
    message: `Switch server ${server.label} from ${plan.id} (${perMonth(plan.monthlyUsdCents)}) to ${target.id} for ${perMonth(target.monthlyUsdCents)} from the next renewal${renews}; nothing is charged now, and a running server reboots.`,
    terms: { productId: target.id, chargeNowUsdCents: 0, monthlyUsdCents: target.monthlyUsdCents },
  };
}

/**
 * In-place vCPU/RAM change to one of the plan options. The disk is unchanged; a running
 * server reboots (about a minute); no money moves now (no proration on an up-switch, no
 * credit on a down-switch): the next renewal bills the new plan. Fires `server.resized`.
 */
export async function changePlan(ctx: ServiceContext, serverId: string, productId: string, query: object = {}) {
  const now = ctx.app.clock.now();
  return ctx.db.$transaction(async (tx) => {
    await lockServer(tx, serverId);
    const server = await getServer(tx, serverId);
    requireAction('changePlan', server);
    const { target } = await planSwitch(tx, server, productId);
    const running = server.status === 'running';
    await ctx.app.provider.resize(
      tx,
      serverId,
      { productId: target.id, vcpu: target.vcpu, ramMb: target.ramMb },
      running,
      now,
    );
    await tx.server.update({
      where: { id: serverId },
      data: {
        productId: target.id,
        vcpu: target.vcpu,
        ramMb: target.ramMb,
        ...(running ? { status: 'rebooting' } : {}),
      },
    });
    await recordEvent(
      tx,
      server.accountId,
      'server.resized',
      { serverId, productId: target.id, vcpu: target.vcpu, ramMb: target.ramMb },
      now,
    );
    return getServer(tx, serverId, query);
  });
}
