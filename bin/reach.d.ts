// Types of reach.js for the TypeScript that imports it (src/cli.ts, src/mcp/stdio.ts).
export declare function cannotReach(url: string, err: unknown): string | undefined;
export declare function baseUrlFromEnv(env?: NodeJS.ProcessEnv, warn?: (line: string) => void): string | undefined;
