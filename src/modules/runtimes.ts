import type { AreaRuntime, DriverCallbacks } from './area-runtime.ts';
import type { AREAS } from './areas.ts';
import { hostingRuntime } from './hosting/runtime.ts';
import { poolsRuntime } from './pools/runtime.ts';
import { serversRuntime } from './servers/runtime.ts';

/** The areas whose manifest declares behaviour (`runtime`): each must be listed below, and only they. */
type WithRuntime = Extract<(typeof AREAS)[number], { runtime: object }>['name'];

/**
 * Every area's behaviour (its `runtime.ts`), one line each, keyed by the manifest that declares
 * it: a manifest with `runtime` and no entry here, or an entry whose manifest declares none,
 * does not compile. Billing's renewals, the /v1 binary routes and the provider wiring in
 * src/app.ts read it.
 */
const RUNTIMES = {
  servers: serversRuntime,
  pools: poolsRuntime,
  hosting: hostingRuntime,
} satisfies { [N in WithRuntime]: AreaRuntime & { area: N } };

export const AREA_RUNTIMES: readonly AreaRuntime[] = Object.values(RUNTIMES);

/** Each provider driver's callbacks, from the one area that hands them in. */
export function driverCallbacks(): DriverCallbacks {
  const handed = AREA_RUNTIMES.flatMap((r) => Object.entries(r.providerCallbacks ?? {}));
  const drivers: (keyof DriverCallbacks)[] = ['serverDriver', 'hostingDriver'];
  for (const driver of drivers) {
    const count = handed.filter(([name]) => name === driver).length;
    if (count !== 1) throw new Error(`${count} areas hand in the ${driver} callbacks; exactly one must`);
  }
  return Object.fromEntries(handed) as unknown as DriverCallbacks;
}
