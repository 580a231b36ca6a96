import SchemaBuilder, {
  BasePlugin,
  type PothosInputFieldConfig,
  type PothosOutputFieldConfig,
  type FieldNullability,
  type FieldRequiredness,
  type InputFieldMap,
  type InputType,
  type SchemaTypes,
  type TypeParam,
} from '@pothos/core';

/**
 * The name REST (and so OpenAPI and the MCP tools) gives a field or argument: GraphQL's
 * camelCase name, or its snake_case (`createdAt` → `created_at`) where the spec writes the REST
 * form in snake_case. That casing is declared once where it holds — `restCase: 'snake'` on an
 * object type (its fields) or on a field (its arguments) — and each name derived from it; a
 * field or argument whose REST name is neither declares it as `restName`. The REST schema
 * (rest-view.ts) renames by the result and each operation's REST projection aliases by it
 * (rest-projection.ts). Kept in the field's extensions as `restName`.
 */
class RestNamePlugin<Types extends SchemaTypes> extends BasePlugin<Types> {
  override onOutputFieldConfig(fieldConfig: PothosOutputFieldConfig<Types>): PothosOutputFieldConfig<Types> {
    const config = withRestOptions(fieldConfig, ['restName', 'restDescription', 'restDetail', 'untrusted']);
    const argCase = restCaseOf(fieldConfig.pothosOptions);
    return {
      ...withDerivedName(config, restCaseOf(this.buildCache.getTypeConfig(fieldConfig.parentType).pothosOptions)),
      // Pothos configures a field's arguments after the field: they take its casing here.
      args: argCase
        ? Object.fromEntries(
            Object.entries(config.args).map(([name, arg]) => [
              name,
              withDerivedName(withRestOptions(arg, ['restName']), argCase),
            ]),
          )
        : config.args,
    };
  }

  override onInputFieldConfig(fieldConfig: PothosInputFieldConfig<Types>): PothosInputFieldConfig<Types> {
    return withRestOptions(fieldConfig, ['restName', 'restDescription']);
  }
}

/** The casings a REST name can be derived in. */
type RestCase = 'snake';

const restCaseOf = (options: unknown) => (options as { restCase?: RestCase } | undefined)?.restCase;

/** `createdAt` → `created_at`; digits stay with the word before them (`blockedRequests24h` → `blocked_requests24h`). */
export const snakeCase = (name: string) => name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/** The config with its REST name derived by `restCase`, unless it declares one. */
function withDerivedName<C extends { name: string; extensions?: unknown }>(
  config: C,
  restCase: RestCase | undefined,
): C {
  const declared = (config.extensions as { restName?: string } | undefined)?.restName;
  const derived = restCase === 'snake' ? snakeCase(config.name) : config.name;
  if (declared || derived === config.name) return config;
  return { ...config, extensions: { ...(config.extensions as object), restName: derived } };
}

/** The REST options a field or argument declares, copied into its extensions. */
function withRestOptions<C extends { pothosOptions: unknown; extensions?: unknown }>(config: C, keys: string[]): C {
  const options = config.pothosOptions as Record<string, unknown>;
  const declared = keys.filter((k) => options[k] !== undefined);
  if (!declared.length) return config;
  return {
    ...config,
    extensions: { ...(config.extensions as object), ...Object.fromEntries(declared.map((k) => [k, options[k]])) },
  };
}

/**
 * Spread into an object type's options: REST shows the type in two forms, the type itself (list
 * items, without its `restDetail` fields) and this detail (with them), named and described here
 * as OpenAPI names them. GraphQL has the one type.
 */
export function restDetailType(name: string, description: string) {
  return { extensions: { restDetail: { name, description } } };
}

/**
 * Spread into a type's options: the name REST (OpenAPI, MCP) gives the type where GraphQL's
 * differs (the REST schema, rest-view.ts, renames it).
 */
export function restTypeName(name: string) {
  return { extensions: { restName: name } };
}

/**
 * REST's page-numbered envelope of a root list whose GraphQL type is a connection (the spec's
 * invoices): `{ data, hasMore, limit, page, total }`, named and described here; `limit` and
 * `page` are the request's (`defaultLimit` when no limit is given), the rest the connection's.
 */
export interface RestPageEnvelope {
  name: string;
  description: string;
  /** Descriptions of its `data`, `limit` and `total`. */
  data: string;
  limit: string;
  total: string;
  defaultLimit: number;
}

/** The extensions of a root list REST answers as a page by number (rest-view.ts builds the envelope). */
export function restPageExtensions(page: RestPageEnvelope) {
  return { restPage: page };
}

const pluginName = 'restName';
SchemaBuilder.registerPlugin(pluginName, RestNamePlugin);
export default pluginName;

declare global {
  export namespace PothosSchemaTypes {
    export interface Plugins<Types extends SchemaTypes> {
      restName: RestNamePlugin<Types>;
    }
    export interface FieldOptions<
      Types extends SchemaTypes = SchemaTypes,
      ParentShape = unknown,
      Type extends TypeParam<Types> = TypeParam<Types>,
      Nullable extends FieldNullability<Type> = FieldNullability<Type>,
      Args extends InputFieldMap = InputFieldMap,
      ResolveShape = unknown,
      ResolveReturnShape = unknown,
    > {
      /** The field's name in REST bodies, OpenAPI and MCP, where its type's casing does not give it. */
      restName?: string;
      /** The casing of the field's arguments in REST and MCP: `snake` derives each one's name. */
      restCase?: RestCase;
      /** The description REST (OpenAPI, MCP) gives the field or operation, where it differs from GraphQL's. */
      restDescription?: string;
      /**
       * REST's detail form of the type (restDetailType): on a field of an entity, REST shows it only
       * in the detail (a ticket's messages); on an operation, REST answers the detail.
       */
      restDetail?: boolean;
      /**
       * The field holds text people other than the caller write (a support message, a site's
       * files and logs, a visitor's request, a commit message): MCP results name where it is,
       * so an agent reads it as data, never as instructions (src/mcp/untrusted.ts).
       */
      untrusted?: boolean;
    }
    export interface ObjectTypeOptions<Types extends SchemaTypes = SchemaTypes, Shape = unknown> {
      /** The casing of the type's fields in REST bodies, OpenAPI and MCP: `snake` derives each one's name. */
      restCase?: RestCase;
    }
    export interface ArgFieldOptions<
      Types extends SchemaTypes = SchemaTypes,
      Type extends InputType<Types> | [InputType<Types>] = InputType<Types> | [InputType<Types>],
      Req extends FieldRequiredness<Type> = FieldRequiredness<Type>,
    > {
      /** The argument's name in REST (path, query or body) and MCP, where its field's casing does not give it. */
      restName?: string;
      /** The argument's description in REST, where it differs from GraphQL's. */
      restDescription?: string;
    }
  }
}
