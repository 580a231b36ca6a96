import { badRequest } from '../../errors.ts';

const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;

/**
 * A DNS name: 2+ labels of letters, digits and hyphens (not at either end), a TLD of letters
 * (or an xn-- IDN label), at most 253 characters; lowercased, trailing dot dropped.
 */
export function parseDnsName(input: unknown, field: string, what = 'a domain name such as "example.com"'): string {
  const name = typeof input === 'string' ? input.trim().toLowerCase().replace(/\.$/, '') : '';
  const labels = name.split('.');
  const tld = labels[labels.length - 1];
  const ok = name.length >= 3 && name.length <= 253 && labels.length >= 2 && labels.every((l) => LABEL.test(l)) && (/^[a-z]{2,63}$/.test(tld) || /^xn--[a-z0-9-]{1,59}$/.test(tld));
  if (!ok) throw badRequest(`${field} must be ${what} (labels of letters, digits and hyphens, at most 253 characters).`, field);
  return name;
}
