// `svc login`, `svc logout` and `svc api`: a person's CLI over the OAuth device flow (README:
// Command line). Plain JavaScript beside svc.js that imports nothing of the server, so these
// commands start at once, without the server bundle or tsx.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { baseUrlFromEnv, cannotReach } from './reach.js';

const CLIENT_ID = 'svc-cli';
const DEFAULT_URL = 'http://127.0.0.1:8080';
const DEVICE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';
/** An access token this close to its expiry is refreshed before the call rather than after a 401. */
const EXPIRY_MARGIN_MS = 60_000;
/** A refresh lock older than this was left by a process that died mid-refresh. */
const STALE_LOCK_MS = 30_000;
/** How long a command waits for another svc process's refresh before giving up. */
const LOCK_WAIT_MS = 15_000;

const USAGE = `Usage:
  svc login [--url URL] [--scope "a:read b:write"]   sign in with the device flow; stores the tokens
  svc logout [--url URL]                             revoke the tokens at the server and delete them
  svc api [--url URL] METHOD PATH [JSON | -]         call /v1 with them, e.g.
                                                     svc api GET /servers
                                                     svc api POST /tickets '{"subject":"Hi","message":"..."}'
URL: --url, else SERVICE_BASE_URL (SVC_URL: deprecated), else the one logged in to, else ${DEFAULT_URL}.
A 403 for a missing scope names it; svc login --scope asks for it (servers:destroy, hosting:manage
and billing:write are never given unless asked for).
Tokens: $XDG_CONFIG_HOME/svc/credentials.json (default ~/.config/svc/), mode 0600.`;

class CliError extends Error {
  constructor(message, exitCode = 1) {
    super(message);
    this.exitCode = exitCode;
  }
}

/** Runs one command; failures print `svc: <why>` on stderr and set a non-zero exit code (2: usage). */
export async function runUserCommand(command, args) {
  try {
    const opts = parseOptions(args);
    if (command === 'login') await login(opts);
    else if (command === 'logout') await logout(opts);
    else await api(opts);
  } catch (err) {
    if (!(err instanceof CliError)) throw err;
    if (err.exitCode === 0) process.stdout.write(`${err.message}\n`);
    else process.stderr.write(err.message.startsWith('Usage:') ? `${err.message}\n` : `svc: ${err.message}\n`);
    process.exitCode = err.exitCode;
  }
}

// ---------------------------------------------------------------- options and files

function parseOptions(args) {
  const opts = { positional: [], url: undefined, scope: undefined };
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    const flag = /^--(url|scope)(?:=(.*))?$/.exec(arg);
    if (!flag) {
      if (arg === '--help' || arg === '-h') throw new CliError(USAGE, 0);
      opts.positional.push(arg);
      continue;
    }
    const value = flag[2] ?? args[++i];
    if (value === undefined || value === '') throw new CliError(`--${flag[1]} needs a value; see svc login --help.`, 2);
    opts[flag[1]] = value;
  }
  return opts;
}

/** The server: --url, SERVICE_BASE_URL (or the deprecated SVC_URL), the one logged in to, the default; as an origin plus path, no trailing slash. */
function serverUrl(opts, loggedIn) {
  const given = opts.url ?? baseUrlFromEnv() ?? loggedIn ?? DEFAULT_URL;
  let url;
  try {
    url = new URL(given);
  } catch {
    throw new CliError(`"${given}" is not a URL; give the server's base URL, e.g. ${DEFAULT_URL}.`, 2);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new CliError(`The server URL must be http or https, not ${url.protocol}`, 2);
  return `${url.origin}${url.pathname}`.replace(/\/+$/, '');
}

/** $XDG_CONFIG_HOME/svc, or ~/.config/svc (a relative XDG_CONFIG_HOME is invalid and ignored, as the spec says). */
function configDir(env = process.env) {
  const xdg = env.XDG_CONFIG_HOME;
  return path.join(xdg && path.isAbsolute(xdg) ? xdg : path.join(os.homedir(), '.config'), 'svc');
}

const credentialsFile = () => path.join(configDir(), 'credentials.json');

function readCredentials() {
  let text;
  try {
    text = fs.readFileSync(credentialsFile(), 'utf8');
  } catch (err) {
    if (err.code === 'ENOENT') return null;
    throw new CliError(`Cannot read ${credentialsFile()}: ${err.message}`);
  }
  try {
    const creds = JSON.parse(text);
    if (
      typeof creds.url === 'string' &&
      typeof creds.accessToken === 'string' &&
      typeof creds.tokenEndpoint === 'string'
    )
      return creds;
  } catch {
    /* reported below */
  }
  throw new CliError(`${credentialsFile()} is not a credentials file of svc; run svc login again.`);
}

/** Written whole then renamed, so a reader never sees half a file; the directory 0700, the file 0600. */
function writeCredentials(creds) {
  const dir = configDir();
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  fs.chmodSync(dir, 0o700);
  const tmp = path.join(dir, `.credentials-${process.pid}-${randomBytes(4).toString('hex')}.tmp`);
  fs.writeFileSync(tmp, `${JSON.stringify(creds, null, 2)}\n`, { mode: 0o600, flag: 'wx' });
  fs.renameSync(tmp, credentialsFile());
}

function fromTokenResponse(t, base, now = Date.now()) {
  if (typeof t.access_token !== 'string' || String(t.token_type).toLowerCase() !== 'bearer')
    throw new CliError('The token endpoint answered no bearer access token.');
  return {
    ...base,
    accessToken: t.access_token,
    refreshToken: typeof t.refresh_token === 'string' ? t.refresh_token : (base.refreshToken ?? null),
    scope: typeof t.scope === 'string' ? t.scope : (base.scope ?? ''),
    expiresAt: new Date(now + (Number(t.expires_in) > 0 ? Number(t.expires_in) : 3600) * 1000).toISOString(),
  };
}

// ---------------------------------------------------------------- HTTP

async function send(url, init) {
  try {
    return await fetch(url, init);
  } catch (err) {
    throw new CliError(cannotReach(url, err) ?? `cannot reach ${new URL(url).origin} (${err.message})`);
  }
}

/** A form POST to an OAuth endpoint (RFC 6749 §3.2): status and JSON body ({} when none). */
async function postForm(endpoint, params) {
  const res = await send(endpoint, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded', Accept: 'application/json' },
    body: new URLSearchParams(params).toString(),
  });
  return { status: res.status, body: await res.json().catch(() => ({})) };
}

function oauthFailure(what, { status, body }) {
  return new CliError(
    `${what} failed: HTTP ${status}${body.error ? ` ${body.error}` : ''}${body.error_description ? ` (${body.error_description})` : ''}`,
  );
}

/** RFC 8414 metadata: the endpoints come from the server, not from assumed paths. */
async function discover(base) {
  const url = `${base}/.well-known/oauth-authorization-server`;
  const res = await send(url, { headers: { Accept: 'application/json' } });
  const meta = res.ok ? await res.json().catch(() => null) : null;
  if (!meta || typeof meta.device_authorization_endpoint !== 'string' || typeof meta.token_endpoint !== 'string') {
    throw new CliError(`${base} offers no OAuth device flow (${url} answered ${res.status}); is it the API server?`);
  }
  return meta;
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// ---------------------------------------------------------------- login

async function login(opts) {
  if (opts.positional.length) throw new CliError(USAGE, 2);
  const base = serverUrl(opts, null);
  const meta = await discover(base);
  const started = await postForm(meta.device_authorization_endpoint, {
    client_id: CLIENT_ID,
    ...(opts.scope ? { scope: opts.scope } : {}),
  });
  if (started.status !== 200) throw oauthFailure('Device authorization', started);
  const device = started.body;
  const out = (line) => process.stdout.write(`${line}\n`);
  out(`Your one-time code: ${device.user_code}`);
  out(`Open ${device.verification_uri} in a browser and enter it, or open the link that carries it:`);
  if (device.verification_uri_complete) out(`  ${device.verification_uri_complete}`);
  out('Waiting for approval...');

  // RFC 8628 §3.4-3.5: poll no faster than `interval`; each slow_down adds 5 seconds for good.
  let interval = Number(device.interval) > 0 ? Number(device.interval) : 5;
  const deadline = Date.now() + (Number(device.expires_in) > 0 ? Number(device.expires_in) : 600) * 1000;
  for (;;) {
    await sleep(interval * 1000);
    const polled = await postForm(meta.token_endpoint, {
      grant_type: DEVICE_GRANT,
      device_code: device.device_code,
      client_id: CLIENT_ID,
    });
    const error = polled.body.error;
    if (polled.status === 200) {
      const creds = fromTokenResponse(polled.body, {
        url: base,
        clientId: CLIENT_ID,
        tokenEndpoint: meta.token_endpoint,
        revocationEndpoint: meta.revocation_endpoint ?? null,
      });
      writeCredentials(creds);
      out(`Logged in to ${base} with scopes: ${creds.scope || '(the default scopes)'}`);
      out(`Tokens stored in ${credentialsFile()}`);
      return;
    }
    if (error === 'slow_down') interval += 5;
    else if (error === 'access_denied') throw new CliError('The request was denied in the browser.');
    else if (error === 'expired_token')
      throw new CliError('The code expired before it was approved; run svc login again.');
    else if (error !== 'authorization_pending') throw oauthFailure('Sign-in', polled);
    if (Date.now() > deadline) throw new CliError('The code expired before it was approved; run svc login again.');
  }
}

// ---------------------------------------------------------------- tokens in use

const expiring = (creds) => !(Date.parse(creds.expiresAt) - EXPIRY_MARGIN_MS > Date.now());

function loggedInTo(opts) {
  const creds = readCredentials();
  const base = serverUrl(opts, creds?.url);
  if (!creds) throw new CliError(`Not logged in: run svc login${base === DEFAULT_URL ? '' : ` --url ${base}`}`);
  if (creds.url !== base) throw new CliError(`Logged in to ${creds.url}, not ${base}: run svc login --url ${base}`);
  return creds;
}

/**
 * A new token pair from the refresh token. Refresh tokens are single-use and presenting a spent
 * one revokes the whole grant (README: OAuth), so two svc processes must never refresh with the
 * same one: a lock file serialises them, and a process that waited takes the pair the other wrote.
 */
async function refresh(creds, rejectedToken) {
  return withLock(async () => {
    const latest = readCredentials() ?? creds;
    if (latest.url === creds.url && latest.accessToken !== rejectedToken && !expiring(latest)) return latest;
    if (!latest.refreshToken) throw new CliError(`The session at ${latest.url} has expired: run svc login`);
    const answer = await postForm(latest.tokenEndpoint, {
      grant_type: 'refresh_token',
      refresh_token: latest.refreshToken,
      client_id: latest.clientId,
    });
    if (answer.status !== 200) {
      if (answer.body.error === 'invalid_grant')
        throw new CliError(`The session at ${latest.url} has ended (signed out, revoked or expired): run svc login`);
      throw oauthFailure('Token refresh', answer);
    }
    const next = fromTokenResponse(answer.body, latest);
    writeCredentials(next);
    return next;
  });
}

async function withLock(work) {
  const lock = path.join(configDir(), 'credentials.lock');
  const since = Date.now();
  for (;;) {
    try {
      fs.writeFileSync(lock, String(process.pid), { flag: 'wx', mode: 0o600 });
      break;
    } catch (err) {
      if (err.code !== 'EEXIST') throw err;
    }
    const age = (() => {
      try {
        return Date.now() - fs.statSync(lock).mtimeMs;
      } catch {
        return 0;
      }
    })();
    if (age > STALE_LOCK_MS) fs.rmSync(lock, { force: true });
    else if (Date.now() - since > LOCK_WAIT_MS)
      throw new CliError(`Another svc process holds ${lock}; delete it if none is running.`);
    else await sleep(100);
  }
  try {
    return await work();
  } finally {
    fs.rmSync(lock, { force: true });
  }
}

// ---------------------------------------------------------------- api

async function api(opts) {
  const [method, apiPath, bodyArg, ...extra] = opts.positional;
  if (!method || !apiPath || extra.length || !/^[A-Za-z]+$/.test(method)) throw new CliError(USAGE, 2);
  let body;
  if (bodyArg !== undefined) {
    body = bodyArg === '-' ? fs.readFileSync(0, 'utf8') : bodyArg;
    try {
      JSON.parse(body);
    } catch (err) {
      throw new CliError(`The body must be JSON (${err.message}), e.g. '{"subject":"Hello","message":"..."}'.`, 2);
    }
  }
  let creds = loggedInTo(opts);
  // The path is under /v1; "/v1/servers", "/servers" and "servers" are the same.
  let rel = apiPath.startsWith('/') ? apiPath : `/${apiPath}`;
  if (/^\/v1(?=[/?]|$)/.test(rel)) rel = rel.slice(3);
  const url = `${creds.url}/v1${rel}`;
  const call = (token) =>
    send(url, {
      method: method.toUpperCase(),
      headers: {
        Authorization: `Bearer ${token}`,
        Accept: 'application/json',
        ...(body !== undefined ? { 'Content-Type': 'application/json' } : {}),
      },
      body,
    });

  if (expiring(creds)) creds = await refresh(creds, creds.accessToken);
  let res = await call(creds.accessToken);
  // The server decides expiry on its own clock (and revocation): a 401 gets one refresh and one retry.
  // The refused request did nothing, so repeating it is safe.
  if (res.status === 401 && creds.refreshToken) {
    creds = await refresh(creds, creds.accessToken);
    res = await call(creds.accessToken);
  }
  const text = await res.text();
  let answer;
  if (text) {
    let printed = text;
    try {
      answer = JSON.parse(text);
      printed = JSON.stringify(answer, null, 2);
    } catch {
      /* not JSON: print as it came */
    }
    process.stdout.write(`${printed}\n`);
  }
  if (!res.ok) {
    const missing = res.status === 403 ? missingScope(answer) : undefined;
    if (missing)
      process.stderr.write(
        `svc: this login lacks the scope "${missing}"; sign in again asking for it: ${loginForScope(creds, missing)}\n`,
      );
    throw new CliError(`${method.toUpperCase()} ${new URL(url).pathname} answered ${res.status}`);
  }
}

/** The scope a 403 names (`code` FORBIDDEN, "This credential lacks the scope \"servers:destroy\"."), if it names one. */
function missingScope(error) {
  if (error?.code !== 'FORBIDDEN' || typeof error.message !== 'string') return undefined;
  return /lacks the scope "([a-z]+:[a-z]+)"/.exec(error.message)?.[1];
}

/**
 * The login that adds `scope`: the scopes held plus it, since a login asks for its whole list
 * and `--scope <scope>` alone would drop the others. The opt-in scopes (servers:destroy,
 * hosting:manage, billing:write) are only ever granted this way.
 */
function loginForScope(creds, scope) {
  const held = (creds.scope ?? '').split(' ').filter(Boolean);
  const list = [...held.filter((s) => s !== scope), scope].join(' ');
  const url = creds.url === DEFAULT_URL ? '' : ` --url ${creds.url}`;
  return `svc login${url} --scope ${held.length ? `"${list}"` : scope}`;
}

// ---------------------------------------------------------------- logout

async function logout(opts) {
  if (opts.positional.length) throw new CliError(USAGE, 2);
  const creds = loggedInTo(opts);
  const problems = [];
  if (!creds.revocationEndpoint) problems.push('the server has no revocation endpoint');
  else {
    // Revoking the refresh token revokes its grant, every access token with it (RFC 7009 §2.1);
    // the access token is revoked as well for servers that only revoke what they are given.
    for (const token of [creds.refreshToken, creds.accessToken].filter(Boolean)) {
      let answer;
      try {
        answer = await postForm(creds.revocationEndpoint, { token, client_id: creds.clientId });
      } catch (err) {
        // Unreachable: the same one line as every command, then what became of the file.
        fs.rmSync(credentialsFile(), { force: true });
        throw new CliError(
          `${err.message}; deleted ${credentialsFile()} all the same: the tokens were not revoked and work until they expire.`,
        );
      }
      if (answer.status !== 200) problems.push(`revocation answered HTTP ${answer.status}`);
    }
  }
  fs.rmSync(credentialsFile(), { force: true });
  if (problems.length) {
    throw new CliError(
      `Deleted ${credentialsFile()}, but the tokens were not revoked at ${creds.url} (${problems.join('; ')}): they work until they expire.`,
    );
  }
  process.stdout.write(`Logged out of ${creds.url}: tokens revoked, ${credentialsFile()} deleted.\n`);
}
