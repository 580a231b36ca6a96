import { badRequest } from '../errors.ts';

/**
 * The constraints of one argument or input field, declared once on it (`...rules({...})` of
 * src/schema/input-rules.ts) and read by the execution check (Pothos's validation plugin, worded
 * by http/executor/stages/restate.ts), the JSON Schema of OpenAPI and MCP (schema/json-schema.ts)
 * and the services the operator API shares.
 * On a list, minItems/maxItems bound the list and every other rule applies to each element.
 */
export interface InputRules {
  minLength?: number;
  maxLength?: number;
  /** A regular expression the whole value matches, and what it means for the message: "suffix must be <means>.". */
  pattern?: { regex: RegExp; means: string };
  minimum?: number;
  maximum?: number;
  minItems?: number;
  maxItems?: number;
  /** What a list holds, for its message: "items must list 1 to 50 line items." (default "entries"). */
  itemsNoun?: string;
  /** The value is one of these (JSON Schema `enum`); for a string argument whose values are open to growth, where a GraphQL enum would not be. */
  oneOf?: readonly string[];
  /** dns-name and host-name are the one DNS-name rule (isDnsName), worded for a domain or a server. */
  format?: 'dns-name' | 'host-name' | 'email';
  /** The rules apply to the value with surrounding white space removed (services store it trimmed). */
  trim?: boolean;
  /** Numbers are money: "an integer number of cents from 1 to 100". */
  cents?: boolean;
}

/** A domain name argument, and a host name argument (a nameserver, a PTR target): the one DNS-name rule. */
export const DNS_NAME_RULES: InputRules = { format: 'dns-name', trim: true };
export const HOST_NAME_RULES: InputRules = { format: 'host-name', trim: true };

const DNS_LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;

/**
 * THE rule for every DNS name the API takes (domains, nameservers, mail domains, PTR targets,
 * hosting domains and their DNS records): 2+ labels of letters, digits and hyphens (not at either
 * end), a TLD of letters (or an xn-- IDN label), at most 253 characters. `name` is already
 * normalised (normalDnsName).
 */
export function isDnsName(name: string): boolean {
  const labels = name.split('.');
  const tld = labels[labels.length - 1];
  return (
    name.length >= 3 &&
    name.length <= 253 &&
    labels.length >= 2 &&
    labels.every((l) => DNS_LABEL.test(l)) &&
    (/^[a-z]{2,63}$/.test(tld) || /^xn--[a-z0-9-]{1,59}$/.test(tld))
  );
}

/** Trimmed, lowercased, trailing dot dropped. */
export function normalDnsName(input: string): string {
  return input.trim().toLowerCase().replace(/\.$/, '');
}

export const DNS_NAME_EXAMPLES = {
  'dns-name': 'a domain name such as "example.com"',
  'host-name': 'a host name such as "ns1.example.net"',
} as const;

/** The DNS-name sentence; `what` names the kind of value ("an e-mail address such as …"). */
export function dnsNameMessage(path: string, what: string): string {
  return `${path} must be ${what} (labels of letters, digits and hyphens, at most 253 characters).`;
}

const EMAIL_MESSAGE_EXAMPLE = 'an e-mail address such as "ada@example.com"';

/** A local part, "@", a DNS name; at most 254 characters. */
function isEmail(text: string): boolean {
  const at = text.lastIndexOf('@');
  return (
    at >= 1 &&
    text.length <= 254 &&
    /^[^\s@]{1,64}$/.test(text.slice(0, at)) &&
    isDnsName(normalDnsName(text.slice(at + 1)))
  );
}

/** "a, b or c" */
function orList(values: readonly string[]): string {
  return values.length > 1 ? `${values.slice(0, -1).join(', ')} or ${values[values.length - 1]}` : values.join('');
}

function range(min: number | undefined, max: number | undefined, unit: string): string {
  if (min !== undefined && max !== undefined) return min === max ? `exactly ${min}${unit}` : `${min} to ${max}${unit}`;
  return min !== undefined ? `at least ${min}${unit}` : `at most ${max}${unit}`;
}

/** What is wrong with one (non-list) value under `r`, as a sentence starting with `path`; undefined when fine. */
function valueProblem(r: InputRules, value: unknown, path: string): string | undefined {
  if (typeof value === 'string') {
    const text = r.trim ? value.trim() : value;
    if (
      (r.minLength !== undefined && text.length < r.minLength) ||
      (r.maxLength !== undefined && text.length > r.maxLength)
    ) {
      return `${path} must be ${range(r.minLength, r.maxLength, ' characters')}.`;
    }
    if (r.pattern && !r.pattern.regex.test(text)) return `${path} must be ${r.pattern.means}.`;
    if (r.oneOf && !r.oneOf.includes(text)) return `${path} must be ${orList(r.oneOf)}.`;
    if (r.format === 'email' && !isEmail(text)) return `${path} must be ${EMAIL_MESSAGE_EXAMPLE}.`;
    if ((r.format === 'dns-name' || r.format === 'host-name') && !isDnsName(normalDnsName(text)))
      return dnsNameMessage(path, DNS_NAME_EXAMPLES[r.format]);
  } else if (typeof value === 'number') {
    if ((r.minimum !== undefined && value < r.minimum) || (r.maximum !== undefined && value > r.maximum)) {
      const bounds =
        r.minimum !== undefined && r.maximum !== undefined
          ? `from ${r.minimum} to ${r.maximum}`
          : range(r.minimum, r.maximum, '');
      return `${path} must be ${r.cents ? 'an integer number of cents' : Number.isInteger(value) ? 'an integer' : 'a number'} ${bounds}.`;
    }
  }
  return undefined;
}

/** The problem of a value (a list's elements each) under `r`; the type's own shape is input-errors.ts's. */
export function ruleProblem(r: InputRules, value: unknown, path: string): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value)) return valueProblem(r, value, path);
  if (
    (r.minItems !== undefined && value.length < r.minItems) ||
    (r.maxItems !== undefined && value.length > r.maxItems)
  ) {
    return `${path} must list ${range(r.minItems, r.maxItems, ` ${r.itemsNoun ?? 'entries'}`)}.`;
  }
  for (let i = 0; i < value.length; i++) {
    const problem = ruleProblem(r, value[i], `${path}[${i}]`);
    if (problem) return problem;
  }
  return undefined;
}

/** For services that the operator API calls too: refuses a value breaking its declared rules. */
export function enforceRules(r: InputRules, value: unknown, path: string): void {
  const problem = ruleProblem(r, value, path);
  if (problem) throw badRequest(problem, path);
}
