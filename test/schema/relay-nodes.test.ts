import fs from 'node:fs';
import path from 'node:path';
import { isObjectType, type GraphQLObjectType } from 'graphql';
import { describe, expect, it } from 'vitest';
import { builder } from '../../src/schema/builder.ts';
import { getSchema } from '../../src/schema/index.ts';
import { decodeGlobalID } from '../../src/schema/node-kinds.ts';

// Object identification through plugin-relay's node API (issue 43): every type implementing Node
// is declared with `builder.node` (its loadMany) or plugin-prisma's `prismaNode` (the plugin's
// load by id), and its global id is the id REST uses, its prefix naming the type.

const schema = getSchema();
const nodeInterface = schema.getType('Node');
const nodeTypes = isObjectType(nodeInterface)
  ? []
  : schema.getPossibleTypes(nodeInterface as never).filter((t): t is GraphQLObjectType => isObjectType(t));

/** Every Node type and the prefix of its ids (src/db/ids.ts). */
const PREFIXES: Record<string, string> = {
  ApiKey: 'key',
  AttachedAddon: 'sad',
  Domain: 'dom',
  Event: 'evt',
  HostingAccount: 'hst',
  HostingBackup: 'hbk',
  HostingSshSession: 'hss',
  Invoice: 'inv',
  Pool: 'pool',
  Server: 'srv',
  ServerIp: 'ip',
  Snapshot: 'snap',
  SshKey: 'ssh',
  Ticket: 'tkt',
  TicketMessage: 'tmsg',
  WalletTransaction: 'txn',
  Webhook: 'wh',
  WebhookDelivery: 'whd',
};

/** Every .ts file under a folder. */
function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((d) => {
    const file = path.join(dir, d.name);
    return d.isDirectory() ? sourceFiles(file) : d.name.endsWith('.ts') ? [file] : [];
  });
}

describe('nodes are plugin-relay nodes', () => {
  it('every Node type is loaded by the plugin: loadMany of builder.node, or prismaNode', () => {
    expect(nodeTypes.map((t) => t.name).sort()).toEqual(Object.keys(PREFIXES).sort());
    const prisma = ['AttachedAddon', 'Server', 'ServerIp', 'Snapshot'];
    for (const type of nodeTypes) {
      const options = builder.configStore.getTypeConfig(type.name).pothosOptions as Record<string, unknown>;
      const loader = prisma.includes(type.name) ? options.loadWithoutCache : options.loadMany;
      expect(typeof loader, type.name).toBe('function');
    }
  });

  it("each type's id prefix decodes to that type; an unknown prefix to none", () => {
    for (const [typename, prefix] of Object.entries(PREFIXES))
      expect(decodeGlobalID(`${prefix}_01`).typename, typename).toBe(typename);
    expect(decodeGlobalID('zzz_01').typename).toBe('');
    expect(decodeGlobalID('noprefix').typename).toBe('');
  });

  it('no type names Node among its interfaces by hand', () => {
    const byHand = sourceFiles('src/modules').filter((f) =>
      /interfaces:\s*\[[^\]]*\bNode\b/.test(fs.readFileSync(f, 'utf8')),
    );
    expect(byHand).toEqual([]);
  });
});
