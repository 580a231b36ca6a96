// Types of runtime.js for the TypeScript that imports it (vitest.config.ts, tests).
export declare function unsupportedNodeReason(version?: string): string | undefined;
