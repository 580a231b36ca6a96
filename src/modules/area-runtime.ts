import type { Tx } from '../db/tx.ts';
import type { PrismaClient } from '../generated/prisma/client.ts';
import type { HostingCallbacks } from '../provider/hosting/types.ts';
import type { JobHandler } from '../provider/jobs.ts';
import type { ProviderCallbacks, ServerProvider } from '../provider/types.ts';
import type { BinaryRoute, BinaryRouteDeclaration } from '../schema/binary-operation.ts';
import type { AreaManifest } from '../core/area.ts';

/**
 * The behaviour an area hands in, beside its manifest (src/core/area.ts): a manifest is data
 * the lowest layers read, so the functions live in the area's `runtime.ts`, declared with
 * `defineRuntime(manifest, hooks)`. The manifest names each hook (`runtime: { … }`) and the hooks
 * must match it, so a hook declared and not handed in (or handed in and not declared) does not
 * compile; src/modules/runtimes.ts lists the runtimes, keyed by the manifests that declare one.
 */

/** One period of a resource that renews monthly: what the renewal invoice bills. */
export interface DueRenewal {
  accountId: string;
  resourceId: string;
  periodStart: Date;
  periodEnd: Date;
  items: { description: string; amountUsdCents: number }[];
}

/** A resource kind billing renews (src/modules/billing/renewals.ts); the invoice purpose is the manifest's. */
interface RenewalHooks {
  due(prisma: PrismaClient, now: Date): Promise<DueRenewal[]>;
  extend(tx: Tx, id: string, from: Date, to: Date): Promise<boolean>;
  /** Falsy when the resource no longer exists (its invoice is then voided). */
  suspend(tx: Tx, provider: ServerProvider, id: string, reason: string, now: Date): Promise<unknown>;
  reactivate(tx: Tx, id: string, now: Date): Promise<void>;
}

/** The provider drivers' callbacks (src/provider): asynchronous upstream work finishing. */
export interface DriverCallbacks {
  serverDriver: ProviderCallbacks;
  hostingDriver: HostingCallbacks;
}

type Declared = NonNullable<AreaManifest['runtime']>;

/** The hooks a manifest's `runtime` declaration asks for, exactly. */
export type HooksOf<R extends Declared> = (R extends { renewalPurpose: string } ? { renewal: RenewalHooks } : unknown) &
  // Their operation ids are the manifest's (test/spine/area-manifest.test.ts checks each).
  (R extends { binaryRoutes: readonly string[] } ? { binaryRoutes: readonly BinaryRouteDeclaration[] } : unknown) &
  (R extends { jobs: readonly (infer Kind extends string)[] } ? { jobHandlers: Record<Kind, JobHandler> } : unknown) &
  (R extends { providerCallbacks: readonly (infer D extends keyof DriverCallbacks)[] }
    ? { providerCallbacks: Pick<DriverCallbacks, D> }
    : unknown);

export interface AreaRuntime {
  area: string;
  renewal?: RenewalHooks & { purpose: string };
  binaryRoutes?: readonly BinaryRoute[];
  jobHandlers?: Record<string, JobHandler>;
  providerCallbacks?: Partial<DriverCallbacks>;
}

/** An area's behaviour, checked against what its manifest declares. */
export function defineRuntime<const M extends AreaManifest & { runtime: Declared }>(
  manifest: M,
  hooks: HooksOf<M['runtime']>,
): AreaRuntime & { area: M['name'] } {
  const { renewal, binaryRoutes, ...rest } = hooks as Omit<AreaRuntime, 'area' | 'binaryRoutes'> & {
    binaryRoutes?: readonly BinaryRouteDeclaration[];
  };
  const purpose = manifest.runtime.renewalPurpose;
  return {
    area: manifest.name,
    ...rest,
    ...(renewal && purpose ? { renewal: { ...renewal, purpose } } : {}),
    // A binary route's area is the manifest's, as an operation's is (operationsOf).
    ...(binaryRoutes
      ? { binaryRoutes: binaryRoutes.map((r) => ({ ...r, area: manifest.name as BinaryRoute['area'] })) }
      : {}),
  };
}
