import { defineRuntime } from '../area-runtime.ts';
import { serversArea } from './manifest.ts';
import { extendServerPaidUntil, serverRenewalsDue } from './renewals.ts';
import { providerCallbacks } from './service.ts';
import { reactivateServer, suspendServerTx } from './suspension.ts';

/** What the servers area hands in (its manifest names each hook). */
export const serversRuntime = defineRuntime(serversArea, {
  renewal: {
    due: (prisma, now) => serverRenewalsDue(prisma, now),
    extend: extendServerPaidUntil,
    suspend: suspendServerTx,
    reactivate: reactivateServer,
  },
  providerCallbacks: { serverDriver: providerCallbacks },
});
