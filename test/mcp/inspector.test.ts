import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { ROOT } from '../helpers/process.ts';

vi.setConfig({ testTimeout: 120_000 });

/**
 * The MCP Inspector's CLI (`@modelcontextprotocol/inspector`, pinned) against /mcp on 127.0.0.1,
 * in both protocol eras: `--protocol-era modern` speaks 2026-07-28 (server/discover, no
 * initialize), the default 2025-11-25. Its catalog goes to a temporary directory.
 */
const CLI = path.join(ROOT, 'node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js');
let app: TestApp;
let home: string;
beforeAll(async () => {
  app = await startTestApp();
  home = mkdtempSync(path.join(tmpdir(), 'inspector-'));
});
afterAll(async () => {
  await app?.stop();
  rmSync(home, { recursive: true, force: true });
});

async function inspect(key: string, ...extra: string[]): Promise<{ tools: { name: string }[] }> {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    [CLI, '--cli', `${app.url}/mcp`, '--method', 'tools/list', '--header', `Authorization: Bearer ${key}`, ...extra],
    {
      cwd: home,
      env: { PATH: process.env.PATH, HOME: home, MCP_CATALOG_PATH: path.join(home, 'mcp.json') },
      timeout: 90_000,
    },
  );
  return JSON.parse(stdout);
}

describe('MCP Inspector CLI', () => {
  it('lists the tools in modern mode (2026-07-28) and in the default (2025-11-25)', async () => {
    const c = await app.customer();
    const modern = await inspect(c.key, '--protocol-era', 'modern');
    expect(modern.tools.map((t) => t.name)).toContain('servers_list');
    const legacy = await inspect(c.key);
    expect(legacy.tools.map((t) => t.name)).toEqual(modern.tools.map((t) => t.name));
  });
});
