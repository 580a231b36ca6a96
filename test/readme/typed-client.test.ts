import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TYPED_CLIENT_TYPES, typedClientTypes } from '../../scripts/typed-client-types.ts';
import { startTestApp, type Customer, type TestApp } from '../helpers/app.ts';
import { ROOT } from '../helpers/process.ts';
import { runningServer } from '../helpers/servers.ts';

const EXAMPLE = path.join(ROOT, 'examples/typed-client/list-servers.ts');

describe('typed client example (examples/typed-client)', () => {
  it(`${TYPED_CLIENT_TYPES} is generated from schema/openapi.json (run \`npm run print-schema\`)`, async () => {
    const openapi = readFileSync(path.join(ROOT, 'schema/openapi.json'), 'utf8');
    expect(readFileSync(path.join(ROOT, TYPED_CLIENT_TYPES), 'utf8')).toBe(await typedClientTypes(openapi));
  });

  it('type-checks, and the same calls with a wrong path, field or type do not', () => {
    const config = ts.getParsedCommandLineOfConfigFile(
      path.join(ROOT, 'tsconfig.json'),
      {},
      { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => undefined },
    )!;
    // A file beside the example, never written to disk: each marked line must be refused.
    const wrongFile = path.join(ROOT, 'examples/typed-client/wrong.ts');
    const wrong = [
      "import createClient from 'openapi-fetch';",
      "import type { paths } from './api.d.ts';",
      'const api = createClient<paths>({ baseUrl: "http://127.0.0.1:8080/v1" });',
      "await api.GET('/server');                                              // wrong: no such path",
      "await api.GET('/servers', { params: { query: { limit: '20' } } });     // wrong: limit is a number",
      "await api.POST('/tickets', { body: { subject: 'Hi' } });               // wrong: message is required",
      // openapi-fetch's body parameter is generic, so TypeScript makes no excess-property check:
      // an unknown field compiles, and the server refuses it (400, unknown parameter). README says so.
      "await api.POST('/tickets', { body: { subject: 'Hi', message: 'x', urgency: 1 } }); // compiles",
      "const s = await api.GET('/servers'); if (s.data) s.data.data[0].name; // wrong: a server has a label, not a name",
      'export {};',
    ].join('\n');
    const host = ts.createCompilerHost(config.options);
    const getSourceFile = host.getSourceFile.bind(host);
    host.getSourceFile = (file, language, ...rest) =>
      path.resolve(file) === wrongFile
        ? ts.createSourceFile(file, wrong, language)
        : getSourceFile(file, language, ...rest);
    const fileExists = host.fileExists.bind(host);
    host.fileExists = (file) => path.resolve(file) === wrongFile || fileExists(file);
    const program = ts.createProgram([EXAMPLE, wrongFile], config.options, host);
    const messages = (file: string) =>
      ts.getPreEmitDiagnostics(program, program.getSourceFile(file)).map((d) => {
        const line = d.file && d.start !== undefined ? d.file.getLineAndCharacterOfPosition(d.start).line + 1 : 0;
        return { line, text: ts.flattenDiagnosticMessageText(d.messageText, '\n') };
      });
    expect(messages(EXAMPLE)).toEqual([]);
    const refusedLines = new Set(messages(wrongFile).map((m) => m.line));
    const markedLines = wrong.split('\n').flatMap((text, i) => (text.includes('// wrong') ? [i + 1] : []));
    expect([...refusedLines].sort((a, b) => a - b)).toEqual(markedLines);
  });

  describe('against a running server', () => {
    let app: TestApp;
    let customer: Customer;
    beforeAll(async () => {
      app = await startTestApp();
      customer = await app.customer();
    });
    afterAll(() => app?.stop());

    it('lists the servers and opens a ticket', async () => {
      const serverId = await runningServer(app, customer, { label: 'web-1' });
      const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', EXAMPLE], {
        cwd: ROOT,
        env: { PATH: process.env.PATH, HOME: process.env.HOME, KEY: customer.key, SERVICE_BASE_URL: app.url },
      });
      const lines = stdout.trim().split('\n');
      expect(lines[0]).toMatch(new RegExp(`^${serverId}  web-1  running  2 vCPU / 4096 MB  \\d+\\.\\d+\\.\\d+\\.\\d+`));
      expect(lines[1]).toBe('1 server(s)');
      expect(lines[2]).toMatch(/^opened TKT-\d+ \(open\): Hello from the typed client$/);
      const tickets = await app.call('GET', '/v1/tickets', { key: customer.key });
      expect(tickets.body.data.map((t: { subject: string }) => t.subject)).toEqual(['Hello from the typed client']);
    });

    it('fails with the API error object when the key is refused', async () => {
      const run = promisify(execFile)(process.execPath, ['--import', 'tsx', EXAMPLE], {
        cwd: ROOT,
        env: { PATH: process.env.PATH, HOME: process.env.HOME, KEY: 'svc_notakey', SERVICE_BASE_URL: app.url },
      });
      await expect(run).rejects.toMatchObject({ stderr: expect.stringContaining('list servers: 401 UNAUTHENTICATED') });
    });
  });
});
