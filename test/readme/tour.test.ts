import { execFile, spawn } from 'node:child_process';
import { createHmac } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type Customer, type TestApp } from '../helpers/app.ts';
import { ROOT } from '../helpers/process.ts';
import { runningServer } from '../helpers/servers.ts';
import { runDueWork, startReceiver, type Receiver } from '../helpers/webhooks.ts';

/** The README's tour snippets by name: each is the fenced block after `<!-- tour:<name> -->`. */
function tourSnippets(): Map<string, { lang: string; code: string }> {
  const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
  const tour = readme.slice(readme.indexOf('\n## Tour\n'), readme.indexOf('\n## ', readme.indexOf('\n## Tour\n') + 1));
  const snippets = new Map<string, { lang: string; code: string }>();
  for (const m of tour.matchAll(/<!-- tour:([\w-]+) -->\n```(\w+)\n([\s\S]*?)\n```/g))
    snippets.set(m[1], { lang: m[2], code: m[3] });
  // Every code block of the tour is one of them: none goes untested.
  expect(tour.match(/^```\w+$/gm)?.length).toBe(snippets.size);
  return snippets;
}

const DOCUMENTED = 'http://127.0.0.1:8080';

describe("README's tour, run as printed against a live server", () => {
  const snippets = tourSnippets();
  let app: TestApp;
  let customer: Customer;
  let receiver: Receiver;
  let dir: string;

  beforeAll(async () => {
    app = await startTestApp({ webhookAllowPrivate: true });
    receiver = await startReceiver();
    customer = await app.customer();
    const serverId = await runningServer(app, customer, { label: 'web-1' });
    const snapshot = await app.call('POST', `/v1/servers/${serverId}/snapshots`, {
      key: customer.key,
      body: { name: 'before-upgrade' },
    });
    expect(snapshot.status, snapshot.text).toBe(200);
    // A directory standing for the checkout the reader runs in: the demo credentials file where
    // `npm start` writes it (with this test's key), and the project's node_modules for imports.
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-tour-'));
    fs.mkdirSync(path.join(dir, '.data'));
    fs.writeFileSync(path.join(dir, '.data/demo-credentials.json'), JSON.stringify({ apiKey: customer.key }));
    fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'));
  });
  afterAll(async () => {
    await receiver?.close();
    await app?.stop();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  /** The snippet's text with the documented address replaced by the test server's. */
  function snippet(name: string, lang: string): string {
    const s = snippets.get(name);
    expect(s, `README tour snippet ${name}`).toBeDefined();
    expect(s!.lang).toBe(lang);
    return s!.code
      .replaceAll(DOCUMENTED, app.url)
      .replaceAll(DOCUMENTED.replace('http', 'ws'), app.url.replace('http', 'ws'));
  }

  async function sh(code: string, env: Record<string, string> = { KEY: customer.key }): Promise<string> {
    const { stdout } = await promisify(execFile)('bash', ['-eo', 'pipefail', '-c', code], {
      cwd: dir,
      env: { PATH: process.env.PATH, ...env },
    });
    return stdout;
  }

  it('REST: reads the key from the credentials file, lists servers and opens a ticket', async () => {
    const out = await sh(snippet('rest', 'sh'), {});
    const [servers, ticket] = out.split(/(?<=\})(?=\{)/).map((part) => JSON.parse(part));
    expect(servers).toMatchObject({ data: [{ label: 'web-1', status: 'running' }], hasMore: false });
    expect(ticket).toMatchObject({ subject: 'Hello', status: 'open', number: expect.stringMatching(/^TKT-\d+$/) });
  });

  it('GraphQL: one request returns servers with their addresses, snapshots and add-ons', async () => {
    const out = JSON.parse(await sh(snippet('graphql', 'sh')));
    expect(out.errors).toBeUndefined();
    expect(out.data.servers.nodes).toEqual([
      {
        label: 'web-1',
        status: 'running',
        ips: [{ ip: expect.stringMatching(/^\d+\.\d+\.\d+\.\d+$/), ptr: null }],
        snapshots: [{ name: 'before-upgrade' }],
        addons: [],
      },
    ]);
  });

  it('subscription: the graphql-ws client prints the events as they happen', async () => {
    const file = path.join(dir, 'subscribe.mjs');
    fs.writeFileSync(file, snippet('subscription', 'js'));
    const child = spawn(process.execPath, [file], {
      cwd: dir,
      env: { PATH: process.env.PATH, KEY: customer.key },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    try {
      // The client subscribes once it has connected; open tickets until one is printed.
      for (let i = 1; i <= 50 && !out.includes('ticket.created'); i++) {
        const ticket = await app.call('POST', '/v1/tickets', {
          key: customer.key,
          body: { subject: `Tour ticket ${i}`, message: 'Hello' },
        });
        expect(ticket.status, ticket.text).toBe(200);
        await new Promise((r) => setTimeout(r, 200));
      }
    } finally {
      child.kill();
    }
    expect(err).toBe('');
    const [type, data] = out.split('\n')[0].split(/ (.*)/);
    expect(type).toBe('ticket.created');
    expect(JSON.parse(data)).toEqual({
      ticketId: expect.stringMatching(/^tkt_/),
      ticketNumber: expect.stringMatching(/^TKT-\d+$/),
      subject: expect.stringMatching(/^Tour ticket \d+$/),
      status: 'open',
      priority: 'normal',
    });
  });

  it('MCP: a tools/call over plain HTTP answers the servers', async () => {
    const out = JSON.parse(await sh(snippet('mcp', 'sh')));
    expect(out.error).toBeUndefined();
    expect(out.result.isError).toBeFalsy();
    expect(JSON.parse(out.result.content[0].text)).toMatchObject({ data: [{ label: 'web-1' }] });
  });

  it('webhooks: the subscription created by curl delivers, and the verifier accepts exactly the genuine signature', async () => {
    const create = snippet('webhook-create', 'sh').replace(
      'https://example.com/hooks/svc',
      `${receiver.url}/hooks/svc`,
    );
    const hook = JSON.parse(await sh(create));
    expect(hook).toMatchObject({
      events: ['ticket.created', 'server.power.changed'],
      secret: expect.stringMatching(/^whsec_/),
    });

    const opened = await app.call('POST', '/v1/tickets', {
      key: customer.key,
      body: { subject: 'Signed', message: 'Hello' },
    });
    expect(opened.status, opened.text).toBe(200);
    await runDueWork(app);
    const delivery = receiver.received.find((r) => r.path === '/hooks/svc' && r.json?.data?.subject === 'Signed');
    expect(delivery).toBeDefined();

    const file = path.join(dir, 'verify.mjs');
    fs.writeFileSync(file, snippet('webhook-verify', 'js'));
    const { verifySignature } = (await import(pathToFileURL(file).href)) as {
      verifySignature: (body: Buffer, header: string, secret: string, tolerance?: number) => boolean;
    };
    const body = Buffer.from(delivery!.body);
    const header = String(delivery!.headers['x-service-signature']);
    expect(verifySignature(body, header, hook.secret)).toBe(true);
    expect(verifySignature(Buffer.from(delivery!.body.replace('Signed', 'Forged')), header, hook.secret)).toBe(false);
    expect(verifySignature(body, header, 'whsec_another')).toBe(false);
    expect(verifySignature(body, 'nonsense', hook.secret)).toBe(false);
    const signed = (t: number) =>
      `t=${t},v1=${createHmac('sha256', hook.secret).update(`${t}.${delivery!.body}`).digest('hex')}`;
    const now = Math.floor(Date.now() / 1000);
    expect(verifySignature(body, signed(now), hook.secret)).toBe(true);
    expect(verifySignature(body, signed(now - 3600), hook.secret)).toBe(false);
  });
});
