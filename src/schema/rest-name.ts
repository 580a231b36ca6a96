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
 * The `restName` option of fields and arguments: the name REST (and so OpenAPI and the MCP
 * tools) gives a field or argument whose GraphQL name differs — the spec's snake_case
 * (`created_at`) beside GraphQL's camelCase (`createdAt`). Declared once on the field; the REST
 * schema (rest-view.ts) renames by it and each operation's REST projection aliases by it
 * (rest-projection.ts). Kept in the field's extensions as `restName`.
 */
class RestNamePlugin<Types extends SchemaTypes> extends BasePlugin<Types> {
  override onOutputFieldConfig(fieldConfig: PothosOutputFieldConfig<Types>): PothosOutputFieldConfig<Types> {
    const restName = (fieldConfig.pothosOptions as { restName?: string }).restName;
    return restName ? { ...fieldConfig, extensions: { ...fieldConfig.extensions, restName } } : fieldConfig;
  }

  override onInputFieldConfig(fieldConfig: PothosInputFieldConfig<Types>): PothosInputFieldConfig<Types> {
    const restName = (fieldConfig.pothosOptions as { restName?: string }).restName;
    return restName ? { ...fieldConfig, extensions: { ...fieldConfig.extensions, restName } } : fieldConfig;
  }
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
      /** The field's name in REST bodies, OpenAPI and MCP, where it differs from the GraphQL name. */
      restName?: string;
    }
    export interface ArgFieldOptions<
      Types extends SchemaTypes = SchemaTypes,
      Type extends InputType<Types> | [InputType<Types>] = InputType<Types> | [InputType<Types>],
      Req extends FieldRequiredness<Type> = FieldRequiredness<Type>,
    > {
      /** The argument's name in REST (path, query or body) and MCP, where it differs from the GraphQL name. */
      restName?: string;
    }
  }
}
