import { badRequest } from '../../errors.ts';
import { dnsNameMessage, DNS_NAME_EXAMPLES, isDnsName, normalDnsName } from '../../core/input-schemas.ts';

/**
 * A DNS name checked by THE rule (isDnsName, also the `dnsName(...)` input schema) for the
 * callers that read it outside GraphQL's checks; lowercased, trailing dot dropped.
 */
export function parseDnsName(input: unknown, field: string, what: string = DNS_NAME_EXAMPLES.domain): string {
  const name = typeof input === 'string' ? normalDnsName(input) : '';
  if (!isDnsName(name)) throw badRequest(dnsNameMessage(field, what), field);
  return name;
}
