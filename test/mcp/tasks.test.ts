import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { CallToolResultSchema, type Task } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { startTestApp, type Customer, type Json, type TestApp } from '../helpers/app.ts';
import { callTool, mcpClient } from '../helpers/mcp.ts';
import { advance, balance, runningServer } from '../helpers/servers.ts';

/**
 * Long operations as tasks (MCP 2025-11-25 Tasks; src/mcp/tasks.ts), driven by the SDK client's
 * own task API: a call that starts a server's work answers a handle at once; the task is
 * `working` while the server is, and `completed` once the simulated clock has moved the work on,
 * with the call's answer as the server is then. A refusal is a task completed at once with the
 * refusal as its result (`isError`); tasks belong to the credential that made them.
 */
let app: TestApp;
const ALL = { 'X-MCP-Toolsets': 'all' };
const ORDER = { productId: 'std-2c-4g-50', label: 'task-1', osTemplate: 'debian-12' };
const MONTHLY = 1_200;

beforeAll(async () => {
  // Two requests at a time: waiting in tasks/result must not take them (src/http/pipeline/shed.ts).
  app = await startTestApp({ overload: { ...loadConfig({}).overload, maxInFlight: 2 } });
});
afterAll(() => app?.stop());

type Message = { type: string; task?: Task; result?: Json; error?: Error };

/** Runs `callToolStream` as a task, its messages gathered as they come; `done` settles with the last. */
function streamed(client: Client, name: string, args: Record<string, unknown>) {
  const messages: Message[] = [];
  const done = (async () => {
    const stream = client.experimental.tasks.callToolStream({ name, arguments: args }, CallToolResultSchema, {
      task: { ttl: 600_000 },
    });
    for await (const message of stream) messages.push(message as Message);
    return messages.at(-1)!;
  })();
  return { messages, done };
}

async function until<T>(read: () => T | undefined): Promise<T> {
  for (let i = 0; i < 600; i++) {
    const value = read();
    if (value !== undefined) return value;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('timed out');
}

async function client(c: Customer, key = c.key): Promise<Client> {
  const connected = await mcpClient(app.url, key, ALL);
  await connected.listTools(); // the SDK learns here which tools run as tasks
  return connected;
}

describe('a server ordered as a task', () => {
  it('lists the tools whose work can be followed, only with the scope that reads it', async () => {
    const c = await app.customer({ walletBalanceUsdCents: 5_000 });
    const listed = (await (await client(c)).listTools()).tools;
    const taskTools = listed.filter((t) => t.execution?.taskSupport === 'optional').map((t) => t.name);
    expect(taskTools.sort()).toEqual(
      [
        'pool_server_create',
        'server_change_plan',
        'server_order',
        'server_power',
        'server_reinstall',
        'server_snapshot_revert',
      ].sort(),
    );
    // A key that may order but not read servers cannot follow the work: no task offered.
    const writer = await app.admin('POST', `/admin/accounts/${c.accountId}/api-keys`, {
      scopes: ['servers:write'],
    });
    const blind = await client(c, writer.body.key);
    const order = (await blind.listTools()).tools.find((t) => t.name === 'server_order');
    expect(order?.execution).toBeUndefined();
    await expect(
      blind.request(
        { method: 'tools/call', params: { name: 'server_order', arguments: ORDER, task: {} } },
        CallToolResultSchema,
      ),
    ).rejects.toThrow(/does not run as a task for this credential/);
    expect(await balance(app, c)).toBe(5_000);
  });

  it('answers a quote as a task done at once; confirmed, follows the server from provisioning to running', async () => {
    const c = await app.customer({ walletBalanceUsdCents: 5_000 });
    const agent = await client(c);

    // Without a person's yes nothing runs: the task is done at once, its result the quote.
    const quoted = streamed(agent, 'server_order', ORDER);
    const last = await quoted.done;
    expect(quoted.messages.map((m) => m.type)).toEqual(['taskCreated', 'taskStatus', 'result']);
    expect(quoted.messages[0].task).toMatchObject({
      status: 'completed',
      statusMessage: expect.stringContaining('"confirmation"'),
    });
    expect(last.result).toMatchObject({ isError: true, structuredContent: { code: 'CONFIRMATION_REQUIRED' } });
    expect(await balance(app, c)).toBe(5_000);
    const confirmation = (last.result as Json).structuredContent.confirmation;

    const ordered = streamed(agent, 'server_order', { ...ORDER, confirmation });
    const created = await until(() => ordered.messages.find((m) => m.type === 'taskCreated')?.task);
    expect(created).toMatchObject({ taskId: expect.stringMatching(/^tsk_/), status: 'working', ttl: 600_000 });
    expect(created.statusMessage).toBe('The server is provisioning.');
    expect(await balance(app, c)).toBe(5_000 - MONTHLY);

    // Polled with tasks/get, as any client would: still working until the clock moves.
    expect(await agent.experimental.tasks.getTask(created.taskId)).toMatchObject({ status: 'working' });
    await advance(app, 180);
    const done = await ordered.done;
    expect(done.type).toBe('result');
    const result = (done.result as Json).structuredContent;
    expect(result).toMatchObject({ chargedUsdCents: MONTHLY, server: { status: 'running' } });
    // The server as REST shows it now, in the call's own answer.
    const rest = await app.call('GET', `/v1/servers/${result.server.id}`, { key: c.key });
    expect(result.server).toEqual(rest.body);
    expect(await agent.experimental.tasks.getTask(created.taskId)).toMatchObject({ status: 'completed' });
    // One order, charged once, however often the task was read.
    expect(await balance(app, c)).toBe(5_000 - MONTHLY);

    const { tasks } = await agent.experimental.tasks.listTasks();
    expect(tasks.map((t) => [t.taskId, t.status])).toEqual([
      [created.taskId, 'completed'],
      [quoted.messages[0].task!.taskId, 'completed'],
    ]);
    await agent.close();
  });

  it('follows a reboot; a task is its credential’s alone, and none can be cancelled', async () => {
    const c = await app.customer({ walletBalanceUsdCents: 5_000 });
    const serverId = await runningServer(app, c);
    const agent = await client(c);
    const reboot = streamed(agent, 'server_power', { id: serverId, action: 'reboot' });
    // A reboot is destructive: confirmed by token like any call (its quote is a failed task).
    const quote = await reboot.done;
    const confirmation = (quote.result as Json).structuredContent.confirmation;
    const rebooting = streamed(agent, 'server_power', { id: serverId, action: 'reboot', confirmation });
    const task = await until(() => rebooting.messages.find((m) => m.type === 'taskCreated')?.task);
    expect(task).toMatchObject({ status: 'working', statusMessage: 'The server is rebooting.' });
    // Following a task spends no point of the request budget: its call paid (src/mcp/http.ts).
    const left = (await app.running.app.limits.peek('default', c.keyId)).remaining;
    for (let i = 0; i < 3; i++) expect((await agent.experimental.tasks.getTask(task.taskId)).status).toBe('working');
    expect((await app.running.app.limits.peek('default', c.keyId)).remaining).toBe(left);

    // Another key of the same account, and another account, see no such task.
    const otherKey = await app.admin('POST', `/admin/accounts/${c.accountId}/api-keys`, {
      scopes: ['servers:read', 'servers:write'],
    });
    const sameAccount = await client(c, otherKey.body.key);
    await expect(sameAccount.experimental.tasks.getTask(task.taskId)).rejects.toThrow(/not found/i);
    const stranger = await client(await app.customer({ walletBalanceUsdCents: 0 }));
    await expect(stranger.experimental.tasks.getTask(task.taskId)).rejects.toThrow(/not found/i);
    expect((await stranger.experimental.tasks.listTasks()).tasks).toEqual([]);

    await expect(agent.experimental.tasks.cancelTask(task.taskId)).rejects.toThrow(/cannot be cancelled/);

    // tasks/result waits for the work; three waits on an instance of two slots leave it serving.
    const waits = [1, 2, 3].map(() =>
      agent.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema, { timeout: 60_000 }),
    );
    await new Promise((r) => setTimeout(r, 300));
    expect((await callTool(agent, 'servers_list', {})).isError).toBeFalsy();
    await advance(app, 120);
    for (const waited of await Promise.all(waits))
      expect(waited.structuredContent).toMatchObject({ id: serverId, status: 'running' });
    const done = await rebooting.done;
    expect((done.result as Json).structuredContent).toMatchObject({ id: serverId, status: 'running' });
    for (const connected of [agent, sameAccount, stranger]) await connected.close();
  });

  it('a tool that settles nothing refuses `task`; without `task` every tool answers at once', async () => {
    const c = await app.customer({ walletBalanceUsdCents: 5_000 });
    const agent = await client(c);
    await expect(
      agent.request(
        { method: 'tools/call', params: { name: 'servers_list', arguments: {}, task: {} } },
        CallToolResultSchema,
      ),
    ).rejects.toThrow(/servers_list does not run as a task/);
    const plain = await callTool(agent, 'servers_list', {});
    expect(plain.isError).toBeFalsy();
    await agent.close();
  });
});
