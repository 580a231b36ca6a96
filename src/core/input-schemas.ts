import { z } from 'zod';
import { badRequest } from '../errors.ts';

/**
 * The constraints of an argument or input field are a zod schema, declared once on it
 * (`...inputSchema(schema)` of src/schema/input-schemas.ts) and read by the execution check
 * (Pothos's validation plugin), the JSON Schema of OpenAPI and MCP (`z.toJSONSchema`,
 * schema/json-schema.ts) and the services the operator API shares (`checkInput`). The refusal's
 * sentence is worded here from zod's issue and the schema's JSON Schema, so each bound is stated
 * with its partner ("1 to 64 characters").
 *
 * Meta a schema may carry for the wording and the reference (`.meta({...})`, never printed):
 * `itemsNoun` (a list's "must list 1 to 50 line items"), `unit: 'cents'` ("an integer number of
 * cents"), `dnsName: 'domain' | 'host'` (which example a DNS name shows).
 */

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
  domain: 'a domain name such as "example.com"',
  host: 'a host name such as "ns1.example.net"',
} as const;

const DNS_NAME_FORM = '(labels of letters, digits and hyphens, at most 253 characters)';

/** The DNS-name sentence; `what` names the kind of value ("an e-mail address such as …"). */
export function dnsNameMessage(path: string, what: string): string {
  return `${path} must be ${what} ${DNS_NAME_FORM}.`;
}

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

/** A domain name (`dnsName('domain')`) or a host name (a nameserver, a PTR target): the one DNS-name rule, trimmed. */
export const dnsName = (kind: keyof typeof DNS_NAME_EXAMPLES) =>
  z
    .string()
    .trim()
    .refine((text) => isDnsName(normalDnsName(text)), { error: `${DNS_NAME_EXAMPLES[kind]} ${DNS_NAME_FORM}` })
    .meta({ format: 'hostname', dnsName: kind });

/** An e-mail address, trimmed. */
export const emailAddress = () =>
  z.string().trim().refine(isEmail, { error: 'an e-mail address such as "ada@example.com"' }).meta({ format: 'email' });

/** An amount of money in US cents, from `min` to `max`. */
export const cents = (min: number, max: number) => z.number().min(min).max(max).meta({ unit: 'cents' });

/** The JSON Schema keywords of a schema and the meta above (`z.toJSONSchema`), one conversion per schema. */
export type InputKeywords = {
  type?: string;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  enum?: readonly string[];
  minimum?: number;
  maximum?: number;
  format?: string;
  minItems?: number;
  maxItems?: number;
  items?: InputKeywords;
  itemsNoun?: string;
  unit?: 'cents';
  dnsName?: keyof typeof DNS_NAME_EXAMPLES;
};

const keywordCache = new WeakMap<z.ZodType, InputKeywords>();

export function keywordsOf(schema: z.ZodType): InputKeywords {
  let keywords = keywordCache.get(schema);
  if (!keywords) {
    keywords = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as InputKeywords;
    keywordCache.set(schema, keywords);
  }
  return keywords;
}

/** "a, b or c" */
function orList(values: readonly unknown[]): string {
  const texts = values.map(String);
  return texts.length > 1 ? `${texts.slice(0, -1).join(', ')} or ${texts[texts.length - 1]}` : texts.join('');
}

function range(min: number | undefined, max: number | undefined, unit: string): string {
  if (min !== undefined && max !== undefined) return min === max ? `exactly ${min}${unit}` : `${min} to ${max}${unit}`;
  return min !== undefined ? `at least ${min}${unit}` : `at most ${max}${unit}`;
}

const TYPE_WORDS: Record<string, string> = {
  string: 'a string',
  number: 'a number',
  int: 'an integer',
  boolean: 'true or false',
  array: 'a list',
};

/** One issue of zod's as the API's sentence about the value at `path` (the issue's own path appended). */
function sentence(keywords: InputKeywords, issue: z.core.$ZodIssue, value: unknown, path: string): string {
  const at = `${path}${issue.path.map((key) => (typeof key === 'number' ? `[${key}]` : `.${String(key)}`)).join('')}`;
  const k = issue.path.length && keywords.items ? keywords.items : keywords;
  const input = issue.path.reduce<unknown>((v, key) => (v as Record<PropertyKey, unknown>)?.[key], value);
  switch (issue.code) {
    case 'too_small':
    case 'too_big':
      if (issue.origin === 'string') return `${at} must be ${range(k.minLength, k.maxLength, ' characters')}.`;
      if (issue.origin === 'array')
        return `${at} must list ${range(k.minItems, k.maxItems, ` ${k.itemsNoun ?? 'entries'}`)}.`;
      {
        const bounds =
          k.minimum !== undefined && k.maximum !== undefined
            ? `from ${k.minimum} to ${k.maximum}`
            : range(k.minimum, k.maximum, '');
        const what =
          k.unit === 'cents' ? 'an integer number of cents' : Number.isInteger(input) ? 'an integer' : 'a number';
        return `${at} must be ${what} ${bounds}.`;
      }
    case 'invalid_value':
      return `${at} must be ${orList(issue.values)}.`;
    case 'invalid_type':
      return `${at} must be ${TYPE_WORDS[issue.expected] ?? issue.expected}.`;
    default:
      // A pattern's or a refinement's own words: what the value must be.
      return `${at} must be ${issue.message}.`;
  }
}

/**
 * What is wrong with `value` under `schema`, as a sentence starting with its path (`path`, then
 * the element's: "x[1] must be …"); undefined when it passes or is absent (absence is the type's
 * business). A list's own size is named before its elements.
 */
export function inputProblem(schema: z.ZodType, value: unknown, path: string): string | undefined {
  if (value === undefined || value === null) return undefined;
  const result = schema.safeParse(value);
  if (result.success) return undefined;
  const { issues } = result.error;
  const issue = issues.find((i) => i.path.length === 0) ?? issues[0];
  return sentence(keywordsOf(schema), issue, value, path);
}

/** For services that the operator API calls too: refuses a value its schema refuses. */
export function checkInput(schema: z.ZodType, value: unknown, path: string): void {
  const problem = inputProblem(schema, value, path);
  if (problem) throw badRequest(problem, path);
}
