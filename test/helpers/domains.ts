import { expect } from 'vitest';
import { ownershipTxt } from '../../src/modules/domains/ownership.ts';
import type { ClientApp } from './app.ts';

/**
 * Publishes, in the simulated DNS, the TXT record that proves `accountId` controls `domain`
 * (what the refusal of an unproven mail domain or custom domain asks the customer to publish).
 */
export async function proveDomain(app: ClientApp, accountId: string, domain: string): Promise<void> {
  const r = await app.admin('PUT', `/admin/dns/${domain}`, { txt: [ownershipTxt(accountId, domain)] });
  expect(r.status, r.text).toBe(200);
}
