import fs from 'node:fs';
import path from 'node:path';
import { baseUrlFromEnv, cannotReach } from '../bin/reach.js';
import { startApp } from './app.ts';
import { type Config, loadConfig } from './config.ts';

const USAGE = `Usage:
  svc serve                         run the API server (PORT, HOST, DATA_DIR, DATABASE_URL, REDIS_URL, ...)
  svc mcp                           MCP over stdio for the API at SERVICE_BASE_URL with SERVICE_API_KEY
                                    (optional SERVICE_MCP_TOOLSETS, SERVICE_MCP_READONLY, SERVICE_MCP_OUTPUT_SCHEMAS)
  svc admin <METHOD> <path> [json]  call the operator API, e.g.
                                    svc admin GET /catalogue
                                    svc admin POST /accounts '{"email":"a@b.co","name":"A","country":"DE"}'
                                    (ADMIN_TOKEN or DATA_DIR/admin-token; SERVICE_BASE_URL or http://HOST:PORT)
  svc login [--url URL] [--scope S] sign in as a person with the OAuth device flow (SERVICE_BASE_URL or
                                    http://127.0.0.1:8080); servers:destroy, hosting:manage and
                                    billing:write only when --scope asks for them
  svc api METHOD PATH [json]        call /v1 with the stored tokens, e.g. svc api GET /servers
  svc logout                        revoke the stored tokens and delete them
SERVICE_BASE_URL names the server for every command (SVC_URL still works, deprecated).`;

async function serve(): Promise<void> {
  let config: Config;
  try {
    config = loadConfig();
  } catch (err) {
    // A bad environment variable: one line that names it, no stack.
    fail(`svc: ${(err as Error).message}`);
  }
  const running = await startApp(config);
  const shutdown = (signal: string) => {
    running.app.log.info({ signal }, 'shutting down');
    running.stop().then(
      () => process.exit(0),
      (err) => {
        running.app.log.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', () => shutdown('SIGTERM'));
  process.once('SIGINT', () => shutdown('SIGINT'));
}

async function admin(args: string[]): Promise<void> {
  const [method, adminPath, body] = args;
  if (!method || !adminPath) fail(USAGE);
  const config = loadConfig();
  const tokenFile = path.join(config.dataDir, 'admin-token');
  const token = process.env.ADMIN_TOKEN || (fs.existsSync(tokenFile) ? fs.readFileSync(tokenFile, 'utf8').trim() : '');
  if (!token) fail(`No operator token: set ADMIN_TOKEN or start the server once so ${tokenFile} exists.`);
  const base = (baseUrlFromEnv() || `http://${config.host}:${config.port}`).replace(/\/+$/, '');
  const url = `${base}/admin${adminPath.startsWith('/admin') ? adminPath.slice(6) : adminPath.startsWith('/') ? adminPath : `/${adminPath}`}`;
  let res: Response;
  let text: string;
  try {
    res = await fetch(url, {
      method: method.toUpperCase(),
      headers: { Authorization: `Bearer ${token}`, ...(body ? { 'Content-Type': 'application/json' } : {}) },
      body,
    });
    text = await res.text();
  } catch (err) {
    // One line, no stack: the same words as every svc command (bin/reach.js).
    process.stderr.write(
      `svc: ${cannotReach(url, err) ?? `cannot reach ${new URL(url).origin} (${(err as Error).message})`}\n`,
    );
    process.exit(1);
  }
  process.stdout.write(`${text}\n`);
  if (!res.ok) process.exit(1);
}

function fail(message: string): never {
  process.stderr.write(`${message}\n`);
  process.exit(2);
}

const [command, ...rest] = process.argv.slice(2);
if (command === 'serve') await serve();
else if (command === 'admin') await admin(rest);
else if (command === 'mcp') await (await import('./mcp/stdio.ts')).runStdioMcp();
else fail(USAGE);
