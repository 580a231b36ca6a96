import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { rawGraphQLWs } from '../helpers/graphql-ws.ts';
import { activeHosting, MANAGE } from '../helpers/hosting.ts';

/**
 * A git deploy waits on the repository's server, which the customer chooses: a slow one must not
 * hold one of the instance's slots meanwhile (src/core/outside-waits.ts). Here the "server"
 * accepts the connection and says nothing, on an instance of one slot.
 */
let app: TestApp;
let silent: net.Server;
const held: net.Socket[] = [];

beforeAll(async () => {
  app = await startTestApp({
    hostingAllowLocalGit: true,
    overload: { ...loadConfig({}).overload, maxInFlight: 1, maxQueueWaitMs: 2000 },
  });
  silent = net.createServer((socket) => void held.push(socket));
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
});
afterAll(async () => {
  for (const socket of held) socket.destroy();
  await new Promise<void>((resolve) => silent.close(() => resolve()));
  await app?.stop();
});

it('a deploy from a repository server that does not answer holds no slot: the instance goes on serving', async () => {
  const c = await app.customer({ scopes: MANAGE });
  const id = await activeHosting(app, c);
  const port = (silent.address() as AddressInfo).port;
  const deploy = app.call('POST', `/v1/hosting/${id}/git/deploy`, {
    key: c.key,
    body: { repo_url: `ssh://git@127.0.0.1:${port}/site.git` },
  });
  for (let waited = 0; held.length === 0 && waited < 10_000; waited += 20) await new Promise((r) => setTimeout(r, 20));
  expect(held).toHaveLength(1);

  // The clone waits on the silent server; the one slot serves other requests meanwhile.
  expect((await (await fetch(`${app.url}/readyz`)).json()).load).toMatchObject({ inFlight: 0 });
  for (let i = 0; i < 3; i++) expect((await app.call('GET', `/v1/hosting/${id}`, { key: c.key })).status).toBe(200);

  // The server hangs up: the clone fails, the request takes a slot again and answers its refusal.
  for (const socket of held) socket.destroy();
  const failed = await deploy;
  expect(failed.status, failed.text).toBe(400);
  expect(failed.body.message).toMatch(/git clone failed/);
});

it('over graphql-ws too: the mutation waits on the silent server without the slot, then answers', async () => {
  const c = await app.customer({ scopes: MANAGE });
  const id = await activeHosting(app, c);
  const port = (silent.address() as AddressInfo).port;
  const before = held.length;
  const socket = await rawGraphQLWs(app.url, c.key);
  socket.start('deploy', 'mutation ($id: ID!, $url: String!) { hostingGitDeploy(id: $id, repoUrl: $url) { status } }', {
    id,
    url: `ssh://git@127.0.0.1:${port}/site.git`,
  });
  for (let waited = 0; held.length === before && waited < 10_000; waited += 20)
    await new Promise((r) => setTimeout(r, 20));
  expect(held).toHaveLength(before + 1);

  expect((await (await fetch(`${app.url}/readyz`)).json()).load).toMatchObject({ inFlight: 0 });
  expect((await app.call('GET', `/v1/hosting/${id}`, { key: c.key })).status).toBe(200);

  for (const s of held) s.destroy();
  const [answer] = await socket.finished('deploy');
  expect(JSON.stringify(answer.payload)).toMatch(/git clone failed/);
  await socket.close();
});
