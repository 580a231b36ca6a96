import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { UnauthorizedError, type OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../helpers/app.ts';
import { ensureDashboardBuilt, hasChromium, launchBrowser, screenshot, type Browser } from '../helpers/browser.ts';
import { accountHolder, startOAuthApp, type Holder } from '../helpers/oauth.ts';
import { redirectReceiver } from '../helpers/oauth-code.ts';
import { DEFAULT_SCOPES } from '../../src/scopes.ts';

/** The MCP host's side of OAuth, kept in memory; the authorization URL goes to the browser. */
class InMemoryProvider implements OAuthClientProvider {
  client?: OAuthClientInformationMixed;
  saved?: OAuthTokens;
  verifier?: string;
  constructor(
    readonly redirectUrl: string,
    private readonly openBrowser: (url: URL) => void,
  ) {}
  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'SDK test host',
      redirect_uris: [this.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }
  state() {
    return 'sdk-state-123';
  }
  clientInformation() {
    return this.client;
  }
  saveClientInformation(info: OAuthClientInformationMixed) {
    this.client = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.openBrowser(url);
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier!;
  }
}

/**
 * An MCP host connecting with OAuth end to end: the official SDK client gets the 401,
 * discovers the protected resource and authorization server, registers (RFC 7591), sends the
 * person to /oauth/authorize (headless Chromium signs in with the dashboard password and
 * approves on the consent page), takes the code at its loopback receiver, and calls tools.
 */
describe.skipIf(!hasChromium)('MCP host with OAuth: SDK client + Chromium', () => {
  let app: TestApp;
  let holder: Holder;
  let browser: Browser;

  beforeAll(async () => {
    ensureDashboardBuilt();
    app = await startOAuthApp();
    holder = await accountHolder(app);
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await app?.stop();
  });

  it('401 → discovery → registration → sign-in and consent in the browser → code → tools with an svc_at_ token', async () => {
    const receiver = await redirectReceiver();
    const { page } = browser;
    let consent: Promise<void> | undefined;
    const provider = new InMemoryProvider(receiver.url, (url) => {
      consent = (async () => {
        await page.goto(url.href);
        // Not signed in: the dashboard's sign-in form, then on to the consent page.
        await page.getByLabel('E-mail').fill(holder.email);
        await page.getByLabel('Password').fill(holder.password);
        await page.getByRole('button', { name: 'Sign in' }).click();
        await page.getByTestId('consent').waitFor();
        await screenshot(page, 'mcp-oauth-consent');
        // The host asked for the default scopes (the 401's scope); the person grants fewer.
        await page.getByRole('checkbox', { name: 'servers:write' }).uncheck();
        await page.getByRole('button', { name: 'Approve' }).click();
        await page.getByTestId('callback-done').waitFor();
      })();
    });

    const transport = new StreamableHTTPClientTransport(new URL(`${app.url}/mcp`), { authProvider: provider });
    const first = new Client({ name: 'oauth-host', version: '1.0.0' });
    await expect(first.connect(transport)).rejects.toBeInstanceOf(UnauthorizedError);
    expect(provider.client?.client_id).toMatch(/^oac_/);
    expect(consent).toBeDefined();
    await consent;
    const callback = await receiver.received;
    expect(callback.state).toBe('sdk-state-123');
    expect(callback.iss).toBe(app.url);
    await transport.finishAuth(callback.code!);
    await receiver.close();

    expect(provider.saved?.access_token).toMatch(/^svc_at_/);
    expect(provider.saved?.refresh_token).toMatch(/^svc_rt_/);
    const granted = provider.saved!.scope!.split(' ');
    expect(granted).toEqual(DEFAULT_SCOPES.filter((s) => s !== 'servers:write'));

    const client = new Client({ name: 'oauth-host', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${app.url}/mcp`), { authProvider: provider }));
    const { tools } = await client.listTools();
    expect(tools.some((t) => t.name === 'servers_list')).toBe(true);
    expect(tools.some((t) => t.name === 'server_power')).toBe(false);
    const listed = await client.callTool({ name: 'servers_list', arguments: {} });
    expect(listed.isError).toBeFalsy();
    expect(listed.structuredContent).toMatchObject({ data: [] });
    await client.close();

    // The grant is bound to the MCP endpoint (the SDK sent resource=<PRM resource>).
    const grant = await app.running.app.prisma.oAuthGrant.findFirstOrThrow({ where: { accountId: holder.accountId } });
    expect(grant.resource).toBe(`${app.url}/mcp`);
  });
});
