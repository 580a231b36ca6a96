import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

/** An MCP SDK client connected to /mcp over Streamable HTTP with a Bearer credential. */
export async function mcpClient(baseUrl: string, key: string, headers: Record<string, string> = {}, counter?: { requests: number }): Promise<Client> {
  const client = new Client({ name: 'test-client', version: '1.0.0' });
  const countingFetch: typeof fetch = (input, init) => {
    if (counter) counter.requests++;
    return fetch(input, init);
  };
  await client.connect(new StreamableHTTPClientTransport(new URL(`${baseUrl}/mcp`), { fetch: countingFetch, requestInit: { headers: { Authorization: `Bearer ${key}`, ...headers } } }));
  return client;
}
