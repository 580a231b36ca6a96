import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import {
  createTaskSessionFromClient,
  type RawClientDispatch,
  resultFromTaskOutcome,
  type TaskEnabledSession,
} from '@modelcontextprotocol/ext-tasks/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type Json, type TestApp } from '../helpers/app.ts';
import { advance, balance, runningServer } from '../helpers/servers.ts';

/**
 * Long operations as tasks for MCP 2026-07-28 clients (the Tasks extension,
 * `io.modelcontextprotocol/tasks`; src/mcp/tasks-extension.ts), driven by the extension's own
 * client (`@modelcontextprotocol/ext-tasks`) over the official 2.x client. The server decides:
 * a call whose work goes on answers a task handle (`resultType: "task"`), one that is done or
 * refused answers as it always does; tasks/get shows the answer inline once the work settled.
 */
let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(() => app?.stop());

const REVISION = '2026-07-28';
const TASKS = 'io.modelcontextprotocol/tasks';
const ORDER = { productId: 'std-2c-4g-50', label: 'ext-task-1', osTemplate: 'debian-12' };
const MONTHLY = 1_200;
const CLIENT_INFO = { name: 'ext-tasks-test-client', version: '1.0.0' };

/**
 * The host's request path the extension's client asks for (`rawDispatch`: the 2.x client's codecs
 * refuse a `resultType: "task"` answer): one JSON-RPC POST to /mcp with the routing headers the
 * revision requires (`Mcp-Name` is the tool's name, or the task's id).
 */
function rawDispatch(key: string): RawClientDispatch {
  let id = 0;
  return async (request) => {
    const { method, params } = request as { method: string; params?: { name?: string; taskId?: string } };
    const name = method === 'tools/call' ? params?.name : params?.taskId;
    const answer = await post(key, { jsonrpc: '2.0', id: ++id, ...(request as object) }, method, name);
    return 'error' in answer ? { kind: 'error', error: answer.error } : { kind: 'result', result: answer.result };
  };
}

async function post(key: string, message: Json, method: string, name?: string): Promise<Json> {
  const res = await fetch(`${app.url}/mcp`, {
    method: 'POST',
    headers: {
      Authorization: `Bearer ${key}`,
      'Content-Type': 'application/json',
      Accept: 'application/json, text/event-stream',
      'X-MCP-Toolsets': 'all',
      'MCP-Protocol-Version': REVISION,
      'Mcp-Method': method,
      ...(name ? { 'Mcp-Name': name } : {}),
    },
    body: JSON.stringify(message),
  });
  const text = await res.text();
  if (!(res.headers.get('content-type') ?? '').includes('text/event-stream')) return JSON.parse(text);
  const data = text
    .split('\n')
    .filter((line) => line.startsWith('data: '))
    .map((line) => JSON.parse(line.slice(6)) as Json);
  return data.find((m) => 'result' in m || 'error' in m)!;
}

/** A request as a 2026-07-28 client frames it, declaring the extension or not. */
function framed(method: string, params: Json, declares = true): Json {
  return {
    jsonrpc: '2.0',
    id: 1,
    method,
    params: {
      ...params,
      _meta: {
        'io.modelcontextprotocol/protocolVersion': REVISION,
        'io.modelcontextprotocol/clientInfo': CLIENT_INFO,
        'io.modelcontextprotocol/clientCapabilities': declares ? { extensions: { [TASKS]: {} } } : {},
      },
    },
  };
}

interface Agent {
  client: Client;
  session: TaskEnabledSession;
}

/** The 2.x client on 2026-07-28 and the extension's session over it; `elicitation` lets the person be asked. */
async function agent(key: string, answer?: 'accept' | 'decline'): Promise<Agent> {
  const client = new Client(CLIENT_INFO, { versionNegotiation: { mode: { pin: REVISION } } });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${app.url}/mcp`), {
      requestInit: { headers: { Authorization: `Bearer ${key}`, 'X-MCP-Toolsets': 'all' } },
    }),
  );
  const session = createTaskSessionFromClient(client, {
    endpointId: `test-${key.slice(-6)}`,
    rawDispatch: rawDispatch(key),
    v2RequestFraming: {
      protocolVersion: REVISION,
      clientInfo: CLIENT_INFO,
      clientCapabilities: answer ? { elicitation: { form: {} } } : {},
    },
    ...(answer ? { onInputRequest: async () => ({ action: answer }) as never } : {}),
  });
  return { client, session };
}

async function close({ session, client }: Agent): Promise<void> {
  await session.close();
  await client.close();
}

const structured = (result: unknown) => (result as { structuredContent: Json }).structuredContent;

describe('the Tasks extension (2026-07-28)', () => {
  it('is declared by server/discover', async () => {
    const c = await app.customer();
    const { client, session } = await agent(c.key);
    expect(client.getServerCapabilities()?.extensions?.[TASKS]).toEqual({});
    expect(session.capabilities).toMatchObject({ execution: true });
    await close({ client, session });
  });

  it('orders a server, confirmed in-band, as a task followed from provisioning to running, charged once', async () => {
    const c = await app.customer({ walletBalanceUsdCents: 5_000 });
    const a = await agent(c.key, 'accept');
    // The person's yes is asked first (input_required, then the retried call); then the task.
    const execution = await a.session.callTool('server_order', ORDER);
    expect(execution.kind).toBe('task');
    if (execution.kind !== 'task') throw new Error('no task');
    expect(execution.handle.taskId).toMatch(/^tsk_/);
    expect(await balance(app, c)).toBe(5_000 - MONTHLY);

    const task = a.session.task(execution.handle.taskId);
    const seen = await task.snapshot();
    expect(seen).toMatchObject({ status: 'working', statusMessage: 'The server is provisioning.' });
    expect(seen.suggestedPollIntervalMs).toBe(2_000);
    expect(seen.retentionMs).toBe(3_600_000);
    // Polled again, still working until the simulated clock moves; nothing is charged again.
    expect((await task.snapshot()).status).toBe('working');

    await advance(app, 180);
    const { outcome } = await execution.settle();
    const answer = structured(resultFromTaskOutcome(outcome));
    expect(answer).toMatchObject({ chargedUsdCents: MONTHLY, server: { status: 'running' } });
    const rest = await app.call('GET', `/v1/servers/${answer.server.id}`, { key: c.key });
    expect(answer.server).toEqual(rest.body);
    expect(await balance(app, c)).toBe(5_000 - MONTHLY);
    await close(a);
  });

  it('answers at once what is refused or declined, and a read: no task', async () => {
    const c = await app.customer({ walletBalanceUsdCents: 5_000 });
    // Without elicitation: the quote and its token, as a tool error, immediately.
    const plain = await agent(c.key);
    const quoted = await plain.session.callTool('server_order', ORDER);
    expect(quoted.kind).toBe('immediate');
    const refusal = structured(resultFromTaskOutcome((await quoted.settle()).outcome));
    expect(refusal).toMatchObject({ code: 'CONFIRMATION_REQUIRED' });
    const listed = await plain.session.callTool('servers_list', {});
    expect(listed.kind).toBe('immediate');
    await close(plain);

    const declining = await agent(c.key, 'decline');
    const declined = await declining.session.callTool('server_order', ORDER);
    expect(declined.kind).toBe('immediate');
    expect(structured(resultFromTaskOutcome((await declined.settle()).outcome))).toMatchObject({
      code: 'CONFIRMATION_DECLINED',
    });
    expect(await balance(app, c)).toBe(5_000);
    await close(declining);
  });

  it('follows a reboot; a task is its credential’s alone; cancel is acknowledged and the work goes on', async () => {
    const c = await app.customer({ walletBalanceUsdCents: 5_000 });
    const serverId = await runningServer(app, c);
    const a = await agent(c.key, 'accept');
    const execution = await a.session.callTool('server_power', { id: serverId, action: 'reboot' });
    if (execution.kind !== 'task') throw new Error('a reboot should answer a task');
    const taskId = execution.handle.taskId;
    expect(await a.session.task(taskId).snapshot()).toMatchObject({
      status: 'working',
      statusMessage: 'The server is rebooting.',
    });

    // Following it spends no point of the request budget: the call paid (src/mcp/http.ts).
    const left = (await app.running.app.limits.peek('default', c.keyId)).remaining;
    await a.session.task(taskId).snapshot();
    expect((await post(c.key, framed('tasks/get', { taskId }), 'tasks/get', taskId)).result.status).toBe('working');
    expect((await app.running.app.limits.peek('default', c.keyId)).remaining).toBe(left);

    // Another key of the account, and another account: not found (-32602), for every method.
    const otherKey = await app.admin('POST', `/admin/accounts/${c.accountId}/api-keys`, {
      scopes: ['servers:read', 'servers:write'],
    });
    const stranger = await app.customer();
    for (const key of [otherKey.body.key, stranger.key])
      for (const method of ['tasks/get', 'tasks/cancel'])
        expect((await post(key, framed(method, { taskId }), method, taskId)).error).toMatchObject({
          code: -32602,
          message: expect.stringMatching(/not found/),
        });
    // A request that does not declare the extension may not follow a task (-32021).
    expect((await post(c.key, framed('tasks/get', { taskId }, false), 'tasks/get', taskId)).error).toMatchObject({
      code: -32021,
      data: { requiredCapabilities: { extensions: { [TASKS]: {} } } },
    });
    // These tasks ask for no input: an update is acknowledged and changes nothing.
    const update = framed('tasks/update', { taskId, inputResponses: { confirm: { action: 'accept' } } });
    const { _meta, ...acknowledged } = (await post(c.key, update, 'tasks/update', taskId)).result;
    expect(acknowledged).toEqual({ resultType: 'complete' });

    // Listening meanwhile, the client hears of the work's progress as it happens: the server it
    // follows is updated (subscriptions/listen, resource-updates.ts), and tasks/get says how.
    const updated: string[] = [];
    a.client.setNotificationHandler('notifications/resources/updated', (n) => {
      updated.push((n.params as { uri: string }).uri);
    });
    const serverUri = `cloud-account:///v1/servers/${serverId}`;
    const listening = await a.client.listen({ resourceSubscriptions: [serverUri] });

    // Cancel is acknowledged, as the extension requires; a reboot has no undo, so it completes.
    await a.session.cancelTask(taskId);
    expect((await a.session.task(taskId).snapshot()).status).toBe('working');
    await advance(app, 120);
    await expect.poll(() => updated).toContain(serverUri);
    await listening.close();
    const done = await a.session.task(taskId).result();
    expect(structured(resultFromTaskOutcome(done))).toMatchObject({ id: serverId, status: 'running' });
    await close(a);
  });

  it('offers no task to a key that cannot read what it follows, nor to a client without the extension', async () => {
    const c = await app.customer({ walletBalanceUsdCents: 5_000 });
    const serverId = await runningServer(app, c);
    const writer = await app.admin('POST', `/admin/accounts/${c.accountId}/api-keys`, {
      scopes: ['servers:write'],
    });
    const blind = await agent(writer.body.key, 'accept');
    const rebooted = await blind.session.callTool('server_power', { id: serverId, action: 'reboot' });
    expect(rebooted.kind).toBe('immediate');
    expect(structured(resultFromTaskOutcome((await rebooted.settle()).outcome))).toMatchObject({
      status: 'rebooting',
    });
    await close(blind);
    await advance(app, 120);

    // The plain 2.x client (no extension declared) gets the answer, never a handle.
    const client = new Client(CLIENT_INFO, { versionNegotiation: { mode: { pin: REVISION } } });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${app.url}/mcp`), {
        requestInit: { headers: { Authorization: `Bearer ${c.key}`, 'X-MCP-Toolsets': 'all' } },
      }),
    );
    const token = (await client.callTool({ name: 'server_power', arguments: { id: serverId, action: 'reboot' } }))
      .structuredContent as Json;
    const answered = await client.callTool({
      name: 'server_power',
      arguments: { id: serverId, action: 'reboot', confirmation: token.confirmation },
    });
    expect(answered.structuredContent).toMatchObject({ id: serverId, status: 'rebooting' });
    await client.close();
  });
});
