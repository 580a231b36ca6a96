import SchemaBuilder, { BasePlugin, type PothosOutputFieldConfig, type SchemaTypes } from '@pothos/core';
import type { AreaManifest } from '../core/area.ts';
import { AREAS } from '../modules/areas.ts';
import type { DeclaredMeta, OperationMeta } from './operation.ts';

/**
 * Names each operation's MCP tool from its field's name when the schema is built, so no
 * declaration repeats it (docs/DESIGN.md: The spine). The name is the field's in snake_case, then
 * the declared `toolVerb` (a read's `list`, `get`, `status`), or the declared `tool` where the
 * field's name does not give it; and when that name does not start with one of its area's tool
 * prefixes (its manifest's `api.toolPrefixes`), the first of them is put in front:
 * `serverSnapshotCreate` → `server_snapshot_create`, `serverSnapshots` with `toolVerb: 'list'` →
 * `server_snapshots_list`, `sshKeyAdd` in account → `account_ssh_key_add`.
 */
export function toolName(field: string, meta: Pick<DeclaredMeta, 'area' | 'tool' | 'toolVerb'>): string {
  const prefixes = (AREAS as readonly AreaManifest[]).find((m) => m.name === meta.area)?.api?.toolPrefixes;
  if (!prefixes) throw new Error(`${field}: area ${meta.area} declares no tool prefixes in its manifest`);
  if (meta.tool && meta.toolVerb) throw new Error(`${field}: declare its tool or its toolVerb, not both`);
  const snake = field.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
  const name = meta.tool ?? (meta.toolVerb ? `${snake}_${meta.toolVerb}` : snake);
  return prefixes.includes(name.split('_')[0]) ? name : `${prefixes[0]}_${name}`;
}

class ToolNamePlugin<Types extends SchemaTypes> extends BasePlugin<Types> {
  override onOutputFieldConfig(fieldConfig: PothosOutputFieldConfig<Types>): PothosOutputFieldConfig<Types> {
    const declared = fieldConfig.extensions?.operation as DeclaredMeta | undefined;
    if (!declared) return fieldConfig;
    const { toolVerb: _, ...meta } = declared;
    const operation: OperationMeta = { ...meta, tool: toolName(fieldConfig.name, declared) };
    return { ...fieldConfig, extensions: { ...fieldConfig.extensions, operation } };
  }
}

const pluginName = 'toolName';
SchemaBuilder.registerPlugin(pluginName, ToolNamePlugin);
export default pluginName;

declare global {
  export namespace PothosSchemaTypes {
    export interface Plugins<Types extends SchemaTypes> {
      toolName: ToolNamePlugin<Types>;
    }
  }
}
