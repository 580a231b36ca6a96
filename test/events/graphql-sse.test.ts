import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';

// GraphQL over server-sent events (yoga's "distinct connections" mode): a subscription POSTed to
// /graphql with Accept: text/event-stream is answered as a stream, event by event, not buffered.

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(() => app?.stop());

/** Reads SSE frames from a fetch body until `until` holds or `ms` pass. */
async function readFrames(
  body: ReadableStream<Uint8Array>,
  until: (text: string) => boolean,
  ms: number,
): Promise<string> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let text = '';
  const deadline = Date.now() + ms;
  try {
    while (!until(text) && Date.now() < deadline) {
      const next = await Promise.race([
        reader.read(),
        new Promise<null>((r) => setTimeout(() => r(null), deadline - Date.now())),
      ]);
      if (!next || next.done) break;
      text += decoder.decode(next.value, { stream: true });
    }
  } finally {
    reader.releaseLock();
  }
  return text;
}

describe('GraphQL subscriptions over SSE', () => {
  it('deliver each event as it happens, with the rate-limit headers; the client hanging up ends the subscription', async () => {
    const c = await app.customer();
    // Count the live subscribers of the event stream, to see the server end the subscription.
    const stream = app.running.app.events;
    const subscribe = stream.subscribe.bind(stream);
    let live = 0;
    stream.subscribe = (listener) => {
      live++;
      const off = subscribe(listener);
      return () => {
        live--;
        off();
      };
    };
    const controller = new AbortController();
    const res = await fetch(`${app.url}/graphql`, {
      method: 'POST',
      signal: controller.signal,
      headers: { Authorization: `Bearer ${c.key}`, 'Content-Type': 'application/json', Accept: 'text/event-stream' },
      body: JSON.stringify({ query: 'subscription { events(types: ["ticket.created"]) { type data } }' }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(res.headers.get('x-ratelimit-limit')).toBe('120');
    expect(res.headers.get('content-length')).toBeNull();

    const body = res.body!;
    const opened = await fetch(`${app.url}/v1/tickets`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${c.key}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ subject: 'Live over SSE', message: 'Does it stream?' }),
    });
    expect(opened.status).toBe(200);
    const frames = await readFrames(body, (t) => t.includes('Live over SSE'), 10_000);
    expect(frames).toMatch(/event: next\ndata: .*"type":"ticket\.created"/);
    expect(frames).toContain('Live over SSE');

    expect(live).toBe(1);
    controller.abort();
    await body.cancel().catch(() => undefined);
    for (let i = 0; i < 50 && live > 0; i++) await new Promise((r) => setTimeout(r, 100));
    stream.subscribe = subscribe;
    expect(live).toBe(0);
  });

  it('a query asked for as a stream is one event, then the stream completes', async () => {
    const c = await app.customer();
    const res = await fetch(`${app.url}/graphql`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${c.key}`, 'Content-Type': 'application/json', Accept: 'text/event-stream' },
      body: JSON.stringify({ query: '{ account { id } }' }),
    });
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text).toContain(`"id":"${c.accountId}"`);
    expect(text).toMatch(/event: complete/);
  });
});
