import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { startTestApp, type Customer, type TestApp } from '../helpers/app.ts';
import { activeHosting, MANAGE, siteDir } from '../helpers/hosting.ts';

/**
 * A client sends its body at its own pace: while the body is still on its way the request holds
 * no slot of the instance (src/http/request/body.ts, the upload in src/modules/hosting/binary.ts),
 * so a few slow senders cannot take every slot and leave the instance refusing everyone else.
 * Here the instance has one slot.
 */
let app: TestApp;
let c: Customer;
beforeAll(async () => {
  app = await startTestApp({ overload: { ...loadConfig({}).overload, maxInFlight: 1, maxQueueWaitMs: 2000 } });
  c = await app.customer({ scopes: [...MANAGE, 'tickets:read', 'tickets:write'] });
});
afterAll(() => app?.stop());

/** A raw request whose head and the first `sent` bytes of its body go out now, the rest on `finish()` (the server closes the connection after its answer). */
function slowRequest(head: string, body: Buffer, sent: number) {
  const { port } = new URL(app.url);
  const socket = net.connect(Number(port), '127.0.0.1');
  socket.write(`${head}Content-Length: ${body.length}\r\n\r\n`);
  socket.write(body.subarray(0, sent));
  let text = '';
  socket.on('data', (d) => (text += d.toString()));
  const answer = new Promise<string>((resolve) => socket.on('close', () => resolve(text)));
  socket.on('error', () => undefined);
  return {
    answer,
    finish: () => socket.write(body.subarray(sent)),
  };
}

const load = async () => (await (await fetch(`${app.url}/readyz`)).json()).load;
const settle = () => new Promise((r) => setTimeout(r, 150));

describe('a body still on its way holds no slot', () => {
  it('a JSON body: reads answer meanwhile; once the body is in, the request runs', async () => {
    const body = Buffer.from(
      JSON.stringify({ subject: 'Slow', message: 'Sent in two parts.', department: 'technical' }),
    );
    const slow = slowRequest(
      `POST /v1/tickets HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${c.key}\r\nContent-Type: application/json\r\nConnection: close\r\n`,
      body,
      10,
    );
    await settle();
    expect(await load()).toMatchObject({ inFlight: 0, queued: 0 });
    for (let i = 0; i < 3; i++) expect((await app.call('GET', '/v1/tickets', { key: c.key })).status).toBe(200);

    slow.finish();
    expect(await slow.answer).toMatch(/^HTTP\/1\.1 200 /);
    const listed = await app.call('GET', '/v1/tickets', { key: c.key });
    expect(listed.body.data.map((t: { subject: string }) => t.subject)).toEqual(['Slow']);
  });

  it('a file upload: reads answer while the file streams in; then it is stored and recorded', async () => {
    const id = await activeHosting(app, c);
    const boundary = 'slowsenderboundary';
    const content = Buffer.alloc(64 * 1024, 'a');
    const body = Buffer.concat([
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="slow.txt"\r\nContent-Type: text/plain\r\n\r\n`,
      ),
      content,
      Buffer.from(`\r\n--${boundary}--\r\n`),
    ]);
    const slow = slowRequest(
      `POST /v1/hosting/${id}/files/upload HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${c.key}\r\nContent-Type: multipart/form-data; boundary=${boundary}\r\nConnection: close\r\n`,
      body,
      1024,
    );
    await settle();
    expect(await load()).toMatchObject({ inFlight: 0, queued: 0 });
    for (let i = 0; i < 3; i++) expect((await app.call('GET', `/v1/hosting/${id}`, { key: c.key })).status).toBe(200);

    slow.finish();
    expect(await slow.answer).toMatch(/^HTTP\/1\.1 200 /);
    expect(fs.readFileSync(path.join(siteDir(app, id), 'public_html', 'slow.txt'))).toEqual(content);
    expect(await load()).toMatchObject({ inFlight: 0 });
  });
});
