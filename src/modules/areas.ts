import type { Merged } from '../core/area.ts';
import { accountArea } from './account/manifest.ts';
import { authArea } from './auth/manifest.ts';
import { billingArea } from './billing/manifest.ts';
import { catalogueArea } from './catalogue/manifest.ts';
import { dashboardArea } from './dashboard/manifest.ts';
import { domainsArea } from './domains/manifest.ts';
import { eventsArea } from './events/manifest.ts';
import { hostingArea } from './hosting/manifest.ts';
import { mailArea } from './mail/manifest.ts';
import { oauthArea } from './oauth/manifest.ts';
import { poolsArea } from './pools/manifest.ts';
import { serversArea } from './servers/manifest.ts';
import { ticketsArea } from './tickets/manifest.ts';
import { webhooksArea } from './webhooks/manifest.ts';

/**
 * Every module's manifest, one line each: the one list the registries read (docs/DESIGN.md:
 * Areas declare themselves once). Areas customers call come first, in the order a reader meets
 * the API (the OpenAPI tags and the scopes print in it). A manifest is data and this file
 * imports nothing else, so the lowest layers may read it.
 */
export const AREAS = [
  accountArea,
  serversArea,
  poolsArea,
  hostingArea,
  mailArea,
  domainsArea,
  billingArea,
  ticketsArea,
  webhooksArea,
  authArea,
  oauthArea,
  dashboardArea,
  catalogueArea,
  eventsArea,
] as const;

type Manifest = (typeof AREAS)[number];

/** An area customers call (its manifest has `api`): an operation's `area`, an OpenAPI tag, an MCP toolset. */
export type Area = Extract<Manifest, { api: object }>['name'];
/** A toolset a manifest declares beside the areas' own (`toolsets`): an operation names it to be listed there. */
export type ExtraToolset = Manifest extends infer M
  ? M extends { toolsets: infer T }
    ? keyof T & string
    : never
  : never;
/** Every scope name, from the manifests that own them. */
export type ScopeName = Manifest extends infer M ? (M extends { scopes: infer S } ? keyof S & string : never) : never;
/** Every event kind with its declaration. */
export type EventKinds = Merged<
  Manifest extends infer M ? (M extends { events: { kinds: infer K } } ? K : never) : never
>;
/** Every live-change kind (announced to open pages only) with its declaration. */
export type LiveChangeKinds = Merged<
  Manifest extends infer M ? (M extends { events: { liveChanges: infer K } } ? K : never) : never
>;
/** Every id prefix by resource kind. */
export type IdPrefixes = Merged<Manifest extends infer M ? (M extends { idPrefixes: infer P } ? P : never) : never>;
