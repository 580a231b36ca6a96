import { defineRuntime } from '../area-runtime.ts';
import { poolsArea } from './manifest.ts';
import { extendPoolPaidUntil, poolRenewalsDue, reactivatePool, suspendPool } from './renewals.ts';

/** What the pools area hands in (its manifest names each hook). */
export const poolsRuntime = defineRuntime(poolsArea, {
  renewal: {
    due: (prisma, now) => poolRenewalsDue(prisma, now),
    extend: extendPoolPaidUntil,
    suspend: suspendPool,
    reactivate: reactivatePool,
  },
});
