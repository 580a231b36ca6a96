import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BuiltApp, startBuiltApp } from '../helpers/built-app.ts';

/** Every file the server sends as it is, by the path a browser asks for it. */
const SERVED = [
  '/ssh-terminal/terminal.js',
  '/server-console/assets/console.js',
  '/server-console/assets/xterm.js',
  '/server-console/assets/xterm.css',
  '/docs/assets/redoc.standalone.js',
  '/docs/assets/graphiql.js',
  '/docs/assets/graphiql.css',
  '/docs/assets/graphql-ws.js',
  '/docs/assets/graphiql-start.js',
];

/** What `npm start` serves comes from dist/: a file the build leaves out answers 500 or 404 here. */
describe('the built server serves every file of its pages', () => {
  let app: BuiltApp;
  beforeAll(async () => {
    app = await startBuiltApp();
  });
  afterAll(() => app?.stop());

  it.each(SERVED)('GET %s → 200 with content', async (path) => {
    const res = await fetch(`${app.url}${path}`);
    expect(res.status, path).toBe(200);
    expect((await res.arrayBuffer()).byteLength, path).toBeGreaterThan(100);
  });

  it('serves the dashboard and the web console page', async () => {
    for (const path of ['/', '/server-console/srv_x']) {
      const res = await fetch(`${app.url}${path}`, { headers: { Accept: 'text/html' } });
      expect(res.status, path).toBe(200);
      expect(await res.text()).toMatch(/<!doctype html>/i);
    }
  });
});
