import { expect } from 'vitest';
import type { ClientApp, Customer } from './app.ts';

export const WRITE = ['servers:read', 'servers:write'];
export const ALL = [...WRITE, 'servers:destroy'];
// pool-fra1 rates: vcpu 400, ram2gb 500, disk100 300, ip16 3200 cents a month.
export const SHAPE = { vcpu: 8, ram2gb: 8, disk100: 2, ip16: 1 };
export const SHAPE_PRICE = 8 * 400 + 8 * 500 + 2 * 300 + 3200;

/** Buys a capacity pool labelled "cluster" (200 expected) and returns it. */
export async function buy(app: ClientApp, c: Customer, shape: Record<string, number> = SHAPE, productId = 'pool-fra1') {
  const res = await app.call('POST', '/v1/pools', { key: c.key, body: { productId, label: 'cluster', ...shape } });
  expect(res.status, res.text).toBe(200);
  return res.body;
}
