import {
  type GraphQLArgument,
  type GraphQLField,
  type GraphQLInputField,
  isInputObjectType,
  isInterfaceType,
  isObjectType,
} from 'graphql';
import { describe, expect, it } from 'vitest';
import { getSchema } from '../../src/schema/index.ts';
import { snakeCase } from '../../src/schema/rest-name.ts';

type Named = GraphQLField<unknown, unknown> | GraphQLArgument | GraphQLInputField;
const restName = (f: Named) => (f.extensions?.restName as string | undefined) ?? f.name;
const declared = (f: Named) =>
  (f.extensions?.pothosOptions as { restName?: string } | undefined)?.restName ??
  (f.extensions?.pothosConfig as { pothosOptions?: { restName?: string } } | undefined)?.pothosOptions?.restName;

describe('REST names derived from the declared casing (src/schema/rest-name.ts)', () => {
  const schema = getSchema();
  const field = (type: string, name: string) => {
    const t = schema.getType(type);
    if (!isObjectType(t)) throw new Error(type);
    return t.getFields()[name];
  };

  it("names a snake-cased type's fields in snake_case; a declared name wins; one word stays", () => {
    // Mailbox and ServerAddon declare restCase: 'snake'; ServerAddon's ipCount keeps the spec's camelCase.
    expect(restName(field('Mailbox', 'createdAt'))).toBe('created_at');
    expect(restName(field('Mailbox', 'passwordChangedAt'))).toBe('password_changed_at');
    expect(restName(field('ServerAddon', 'proratedUsdCents'))).toBe('prorated_usd_cents');
    expect(restName(field('ServerAddon', 'ipCount'))).toBe('ipCount');
    expect(field('Mailbox', 'address').extensions?.restName).toBeUndefined();
  });

  it("leaves a type without a casing in GraphQL's names but for what it declares", () => {
    expect(restName(field('Server', 'createdAt'))).toBe('createdAt');
    expect(restName(field('HostingAccount', 'createdAt'))).toBe('createdAt');
    expect(restName(field('HostingAccount', 'phpVersion'))).toBe('php_version');
  });

  it("names a field's arguments by the field's casing; a declared name wins", () => {
    const names = (f: GraphQLField<unknown, unknown>) => Object.fromEntries(f.args.map((a) => [a.name, restName(a)]));
    expect(names(field('Mutation', 'mailboxCreate'))).toEqual({
      domainId: 'domain_id',
      localPart: 'local_part',
      password: 'password',
      quotaMb: 'quota_mb',
    });
    expect(names(field('Query', 'mailboxes'))).toMatchObject({ first: 'limit', after: 'cursor' });
    expect(names(field('Mutation', 'serverAddonAttach'))).toMatchObject({ addonId: 'addonId' });
  });

  it('keeps its marker out of the built extensions', () => {
    for (const a of field('Mutation', 'mailboxCreate').args) expect(a.extensions?.restCase).toBeUndefined();
  });

  it('snake-cases the way the spec writes names', () => {
    expect(snakeCase('overdueTotalUsdCents')).toBe('overdue_total_usd_cents');
    expect(snakeCase('blockedRequests24h')).toBe('blocked_requests24h');
  });
});

describe("the API's schema declares a REST name only where its casing does not give it", () => {
  it('no field or argument repeats the name its type or field casing derives', () => {
    const schema = getSchema();
    const redundant: string[] = [];
    const check = (owner: string, f: Named, restCase: unknown) => {
      const own = declared(f);
      const derivedName = restCase === 'snake' ? snakeCase(f.name) : f.name;
      if (own !== undefined && own === derivedName) redundant.push(`${owner}.${f.name}: ${own}`);
    };
    const caseOf = (options: unknown) => (options as { restCase?: string } | undefined)?.restCase;
    for (const type of Object.values(schema.getTypeMap())) {
      if (type.name.startsWith('__')) continue;
      const typeCase = caseOf(type.extensions?.pothosOptions);
      if (isObjectType(type) || isInterfaceType(type)) {
        for (const f of Object.values(type.getFields())) {
          check(type.name, f, typeCase);
          for (const a of f.args) check(`${type.name}.${f.name}`, a, caseOf(f.extensions?.pothosOptions));
        }
      } else if (isInputObjectType(type)) {
        for (const f of Object.values(type.getFields())) check(type.name, f, typeCase);
      }
    }
    expect(redundant).toEqual([]);
  });
});
