import { spawn } from 'node:child_process';
import { Client as ModernClient } from '@modelcontextprotocol/client';
import { StdioClientTransport as ModernStdioTransport } from '@modelcontextprotocol/client/stdio';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  createTaskSessionFromClient,
  type RawClientDispatch,
  resultFromTaskOutcome,
} from '@modelcontextprotocol/ext-tasks/client';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startTestApp, type Customer, type Json, type TestApp } from '../helpers/app.ts';
import { mcpClient } from '../helpers/mcp.ts';
import { ROOT } from '../helpers/process.ts';
import { advance, runningServer } from '../helpers/servers.ts';

vi.setConfig({ testTimeout: 120_000 });

const REVISION = '2026-07-28';
const TASKS = 'io.modelcontextprotocol/tasks';
const CLIENT_INFO = { name: 'stdio-modern-test', version: '1' };
const structured = (result: unknown) => (result as { structuredContent: Json }).structuredContent;

function modernStdio(key: string) {
  return new ModernStdioTransport({
    command: process.execPath,
    args: ['bin/svc.js', 'mcp'],
    cwd: ROOT,
    env: { PATH: process.env.PATH!, SERVICE_API_KEY: key, SERVICE_BASE_URL: app.url },
    stderr: 'pipe',
  });
}

/** `svc mcp` spoken to line by line: what the Tasks extension's client needs as its raw request path. */
function rawStdio(env: Record<string, string>): { dispatch: RawClientDispatch; close: () => void } {
  const child = spawn(process.execPath, ['bin/svc.js', 'mcp'], { cwd: ROOT, env, stdio: ['pipe', 'pipe', 'pipe'] });
  const waiting = new Map<number, (message: Json) => void>();
  let buffered = '';
  child.stdout.on('data', (chunk) => {
    buffered += chunk;
    let end = buffered.indexOf('\n');
    while (end >= 0) {
      const message = JSON.parse(buffered.slice(0, end)) as Json;
      buffered = buffered.slice(end + 1);
      waiting.get(message.id)?.(message);
      end = buffered.indexOf('\n');
    }
  });
  let id = 0;
  return {
    dispatch: async (request) => {
      const message = { jsonrpc: '2.0', id: ++id, ...(request as object) };
      const answer = new Promise<Json>((resolve) => waiting.set(message.id, resolve));
      child.stdin.write(`${JSON.stringify(message)}\n`);
      const response = await answer;
      return 'error' in response
        ? { kind: 'error', error: response.error }
        : { kind: 'result', result: response.result };
    },
    close: () => child.kill(),
  };
}

let app: TestApp;
let c: Customer;
beforeAll(async () => {
  app = await startTestApp();
  c = await app.customer();
});
afterAll(() => app?.stop());

function stdioClient(env: Record<string, string>) {
  return new StdioClientTransport({
    command: process.execPath,
    args: ['bin/svc.js', 'mcp'],
    cwd: ROOT,
    env: { PATH: process.env.PATH!, ...env },
    stderr: 'pipe',
  });
}

describe('svc mcp (stdio)', () => {
  it('serves the same catalogue as HTTP and calls tools through the API', async () => {
    const client = new Client({ name: 'stdio-test', version: '1' });
    await client.connect(stdioClient({ SERVICE_API_KEY: c.key, SERVICE_BASE_URL: app.url }));
    const viaStdio = (await client.listTools()).tools;
    const http = await mcpClient(app.url, c.key);
    const viaHttp = (await http.listTools()).tools;
    // The same, but for tasks: a 2025-11-25 stdio client gets none (docs/REFERENCE.md: MCP, Tasks).
    expect(viaHttp.some((t) => t.execution)).toBe(true);
    expect(viaStdio).toEqual(viaHttp.map(({ execution: _, ...tool }) => tool));
    expect(client.getInstructions()).toBe(http.getInstructions());
    // The API's server info, title, icon and website included.
    expect(client.getServerVersion()).toEqual(http.getServerVersion());
    expect(client.getServerVersion()).toMatchObject({ title: 'Cloud Account API', icons: [expect.anything()] });
    expect(client.getInstructions()).toMatch(/idempotency_key/);
    const account = await client.callTool({ name: 'servers_list', arguments: {} });
    expect(account.structuredContent).toEqual({ data: [], hasMore: false, nextCursor: null });
    // Resources, their templates, reads and errors pass through as HTTP answers them.
    expect((await client.listResources()).resources).toEqual((await http.listResources()).resources);
    expect((await client.listResourceTemplates()).resourceTemplates).toEqual(
      (await http.listResourceTemplates()).resourceTemplates,
    );
    expect(await client.readResource({ uri: 'cloud-account:///v1/servers' })).toEqual(
      await http.readResource({ uri: 'cloud-account:///v1/servers' }),
    );
    expect(await client.listPrompts()).toEqual(await http.listPrompts());
    expect(await client.getPrompt({ name: 'pay_due_invoices' })).toEqual(
      await http.getPrompt({ name: 'pay_due_invoices' }),
    );
    const missing = await client.readResource({ uri: 'cloud-account:///v1/servers/srv_x' }).catch((e: unknown) => e);
    // The 2.x SDK that serves stdio answers a resource not found with -32602 in every revision
    // (2026-07-28's code; it maps -32002 at its encode seam); HTTP's 2025-11-25 path keeps -32002.
    expect(missing).toMatchObject({
      code: -32602,
      data: { statusCode: 404, uri: 'cloud-account:///v1/servers/srv_x' },
    });
    const readOnly = new Client({ name: 'stdio-test', version: '1' });
    await readOnly.connect(
      stdioClient({
        SERVICE_API_KEY: c.key,
        SERVICE_BASE_URL: app.url,
        SERVICE_MCP_READONLY: 'true',
        SERVICE_MCP_TOOLSETS: 'servers',
      }),
    );
    const ro = (await readOnly.listTools()).tools;
    expect(ro.every((t) => t.annotations?.readOnlyHint)).toBe(true);
    expect(ro.some((t) => t.name === 'servers_list')).toBe(true);
    await Promise.all([client.close(), readOnly.close(), http.close()]);
  });

  it('speaks 2026-07-28 too: a 2.x client pinned to it discovers, lists and calls', async () => {
    const client = new ModernClient(
      { name: 'stdio-modern-test', version: '1' },
      { versionNegotiation: { mode: { pin: '2026-07-28' } } },
    );
    await client.connect(
      new ModernStdioTransport({
        command: process.execPath,
        args: ['bin/svc.js', 'mcp'],
        cwd: ROOT,
        env: { PATH: process.env.PATH!, SERVICE_API_KEY: c.key, SERVICE_BASE_URL: app.url },
        stderr: 'pipe',
      }),
    );
    expect(client.getProtocolEra()).toBe('modern');
    expect(client.getServerVersion()).toMatchObject({ name: 'cloud-account-api', title: 'Cloud Account API' });
    const http = await mcpClient(app.url, c.key);
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(
      (await http.listTools()).tools.map((t) => t.name),
    );
    const listed = await client.callTool({ name: 'servers_list', arguments: {} });
    expect(listed.structuredContent).toEqual({ data: [], hasMore: false, nextCursor: null });
    await Promise.all([client.close(), http.close()]);
  });

  it('asks a 2026-07-28 client that declared elicitation in-band, as over HTTP', async () => {
    const owner = await app.customer({ walletBalanceUsdCents: 5_000 });
    const serverId = await runningServer(app, owner);
    const questions: string[] = [];
    let answer: 'accept' | 'decline' = 'decline';
    const client = new ModernClient(CLIENT_INFO, {
      versionNegotiation: { mode: { pin: REVISION } },
      capabilities: { elicitation: { form: {} } },
    });
    client.setRequestHandler('elicitation/create', async (request) => {
      questions.push((request.params as { message: string }).message);
      return { action: answer };
    });
    await client.connect(modernStdio(owner.key));
    const reboot = { name: 'server_power', arguments: { id: serverId, action: 'reboot' } };
    // Declined: nothing done, the question in the refusal.
    const declined = await client.callTool(reboot);
    expect(declined.structuredContent).toMatchObject({ code: 'CONFIRMATION_DECLINED' });
    expect(questions).toEqual([expect.stringMatching(/reboot/i)]);
    expect((await app.call('GET', `/v1/servers/${serverId}`, { key: owner.key })).body.status).toBe('running');
    // Accepted: it runs, once.
    answer = 'accept';
    const accepted = await client.callTool(reboot);
    expect(accepted.structuredContent).toMatchObject({ id: serverId, status: 'rebooting' });
    expect(questions).toHaveLength(2);
    await client.close();
  });

  it('serves the Tasks extension to a 2026-07-28 client that declares it', async () => {
    const owner = await app.customer({ walletBalanceUsdCents: 5_000 });
    const serverId = await runningServer(app, owner);
    const client = new ModernClient(CLIENT_INFO, { versionNegotiation: { mode: { pin: REVISION } } });
    await client.connect(modernStdio(owner.key));
    expect(client.getServerCapabilities()?.extensions?.[TASKS]).toEqual({});
    expect((await client.listTools()).tools.some((t) => t.execution)).toBe(false);
    // The extension's client takes task answers on a path of the host's own (rawDispatch): here a
    // second `svc mcp` of the same key, spoken to line by line (the API keeps the tasks).
    const raw = rawStdio({ PATH: process.env.PATH!, SERVICE_API_KEY: owner.key, SERVICE_BASE_URL: app.url });
    const session = createTaskSessionFromClient(client, {
      endpointId: 'stdio',
      rawDispatch: raw.dispatch,
      v2RequestFraming: {
        protocolVersion: REVISION,
        clientInfo: CLIENT_INFO,
        clientCapabilities: { elicitation: { form: {} } },
      },
      onInputRequest: async () => ({ action: 'accept' }) as never,
    });
    // A read answers at once; a reboot, confirmed in-band first, answers a task.
    expect((await session.callTool('servers_list', {})).kind).toBe('immediate');
    const execution = await session.callTool('server_power', { id: serverId, action: 'reboot' });
    if (execution.kind !== 'task') throw new Error('a reboot should answer a task');
    expect(await session.task(execution.handle.taskId).snapshot()).toMatchObject({
      status: 'working',
      statusMessage: 'The server is rebooting.',
    });
    await advance(app, 120);
    const { outcome } = await execution.settle();
    expect(structured(resultFromTaskOutcome(outcome))).toMatchObject({ id: serverId, status: 'running' });
    await session.close();
    await client.close();
    raw.close();
  });

  it('a missing key is a clear error on stderr and a non-zero exit; stdout stays clean', async () => {
    const child = spawn(process.execPath, ['bin/svc.js', 'mcp'], {
      cwd: ROOT,
      env: { PATH: process.env.PATH },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    const code = await new Promise<number | null>((r) => child.on('exit', r));
    expect(code).not.toBe(0);
    expect(err).toMatch(/SERVICE_API_KEY is not set/);
    expect(out).toBe('');
  });

  it('a bad key fails at start with a clear error', async () => {
    const child = spawn(process.execPath, ['bin/svc.js', 'mcp'], {
      cwd: ROOT,
      env: { PATH: process.env.PATH, SERVICE_API_KEY: `svc_${'Q'.repeat(40)}`, SERVICE_BASE_URL: app.url },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let err = '';
    child.stderr.on('data', (d) => (err += d));
    const code = await new Promise<number | null>((r) => child.on('exit', r));
    expect(code).not.toBe(0);
    expect(err).toMatch(/\/mcp refused this key/);
    expect(err).not.toMatch(/cannot reach/);
  });
});
