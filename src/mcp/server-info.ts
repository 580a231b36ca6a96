import type { Implementation } from '@modelcontextprotocol/sdk/types.js';
import { API_REVISION } from '../version.ts';

/**
 * The initialize result's serverInfo: a host shows the title and the icon beside the tools, and
 * links the website. The icon is the dashboard's own favicon, served by this app at the public
 * origin (never a CDN); the website is the public base URL, where the console is.
 */
export function mcpServerInfo(publicBaseUrl: string): Implementation {
  return {
    name: 'cloud-account-api',
    title: 'Cloud Account API',
    version: API_REVISION,
    websiteUrl: publicBaseUrl,
    icons: [{ src: `${publicBaseUrl}/favicon.svg`, mimeType: 'image/svg+xml', sizes: ['any'] }],
  };
}
