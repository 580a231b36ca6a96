/**
 * What an area (a folder under src/modules/) declares once, in its `manifest.ts`, for every
 * registry to read: the scope vocabulary (src/scopes.ts), the event catalogue
 * (src/events/catalog.ts), the id prefixes (src/db/ids.ts), the `Area` of an operation and its
 * OpenAPI tag and MCP toolset (src/schema/operation.ts, src/http/rest/openapi-guide.ts,
 * src/mcp/catalog.ts), and which behaviour its runtime (src/modules/runtimes.ts) must hand in.
 *
 * A manifest is data: it imports this file and nothing else, so the lowest layers (db, events,
 * the dashboard's browser bundle) can read it without reaching into a module's code
 * (.dependency-cruiser.cjs, docs/DESIGN.md: Areas declare themselves once).
 */

/** The JSON type of an event's payload field: what webhook documentation declares and emitters are typed by. */
interface PayloadField {
  type: string | readonly string[];
  format?: string;
  items?: { type: string };
  examples?: readonly unknown[];
}
export const str = { type: 'string' } as const;
export const int = { type: 'integer' } as const;
export const time = { type: 'string', format: 'date-time' } as const;
export const nullableStr = { type: ['string', 'null'] } as const;
export const bool = { type: 'boolean' } as const;
/** A list of strings (a domain's nameservers). */
export const strList = { type: 'array', items: { type: 'string' } } as const;
/** A string field whose example (the document's) must be of its kind: a new server's status is provisioning. */
export const strOf = <const E extends string>(example: E) => ({ type: 'string', examples: [example] }) as const;

export interface AreaManifest {
  /** The folder under src/modules/, and an operation's `area`. */
  name: string;
  /**
   * An area customers call: its OpenAPI tag's description (tags print in the order of the list,
   * src/modules/areas.ts) and its MCP toolset. Absent for a module with no operations of its own.
   */
  api?: {
    tag: string;
    /** MCP: offered without asking, or only when named in X-MCP-Toolsets; `order` places it in MCP's toolset list. */
    toolset: { offered: 'by default' | 'on request'; order: number };
    /** The first word of each of its MCP tool names (`server_power` → `server`). */
    toolPrefixes: readonly string[];
    /** The OpenAPI document's event delivery (its `webhooks` section) is under this area's tag. */
    eventDeliveries?: true;
    /** Scopes of other areas its operations use (pools are bought and read with the servers scopes). */
    borrowedScopes?: readonly string[];
  };
  /**
   * MCP toolsets it declares beside its area's own (`api.toolset`): an operation of any area
   * names one in its metadata (`toolset`) to be listed there instead (`purchases`, the tools that
   * spend the account's money, offered only when asked for).
   */
  toolsets?: Readonly<Record<string, { offered: 'by default' | 'on request'; order: number }>>;
  /** The scopes it owns, with what each covers; `optIn` ones are only granted when asked for by name. */
  scopes?: Readonly<Record<string, string>>;
  optIn?: readonly string[];
  /**
   * The event kinds it records, each with the scope a reader needs (one of its own, or one it
   * borrows: pool events are read with servers:read, as pools are) and its payload
   * fields; `order` places its kinds in the catalogue (webhook enums and the OpenAPI document print it).
   */
  events?: {
    order: number;
    kinds: Readonly<Record<string, { scope: string; fields: Readonly<Record<string, PayloadField>> }>>;
    /**
     * Live changes: state moves no account event reports (a reboot settling, a webhook delivery's
     * attempt), announced to open pages (the `liveChanges` subscription) when they commit and
     * nowhere else: not stored, not in the history, never a webhook, not in the spec's catalogue.
     * Each has a reader's scope and payload fields, as an event kind has.
     */
    liveChanges?: Readonly<Record<string, { scope: string; fields: Readonly<Record<string, PayloadField>> }>>;
  };
  /** Prefix of each resource kind it stores (`server: 'srv'`), so an id says what it is. */
  idPrefixes?: Readonly<Record<string, string>>;
  /**
   * Behaviour its runtime (`runtime.ts`, listed in src/modules/runtimes.ts) hands in, named here
   * so a missing hook is a type error: the invoice purpose its renewals bill, its binary routes'
   * operation ids, the provider job kinds it handles.
   */
  runtime?: {
    renewalPurpose?: string;
    binaryRoutes?: readonly string[];
    jobs?: readonly string[];
    providerCallbacks?: readonly ('serverDriver' | 'hostingDriver')[];
  };
}

/** Declares an area; the literal types survive, so the registries composed from manifests stay exact. */
export function defineArea<const M extends AreaManifest>(manifest: M): M {
  return manifest;
}

/** A union to an intersection: how the registries merge every manifest's records into one type. */
export type Merged<U> = (U extends unknown ? (k: U) => void : never) extends (k: infer I) => void ? I : never;
