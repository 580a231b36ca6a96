import { defineRuntime } from '../area-runtime.ts';
import { hostingBinaryRoutes } from './binary.ts';
import { hostingArea } from './manifest.ts';
import { hostingCallbacks } from './service.ts';

/** What the hosting area hands in (its manifest names each hook). */
export const hostingRuntime = defineRuntime(hostingArea, {
  binaryRoutes: hostingBinaryRoutes,
  providerCallbacks: { hostingDriver: hostingCallbacks },
});
