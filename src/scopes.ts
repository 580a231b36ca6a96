import { AREAS, type ScopeName } from './modules/areas.ts';

/**
 * The scope vocabulary of the spec, with what each covers, in the order of the areas that own
 * them: each area declares its scopes in its manifest (src/modules/<area>/manifest.ts) and this
 * is their union. Operations name their scope on their field (src/schema/operation.ts).
 */
export const SCOPES = Object.assign({}, ...AREAS.map((a) => ('scopes' in a ? a.scopes : {}))) as Record<
  ScopeName,
  string
>;

export type Scope = ScopeName;
export const ALL_SCOPES = Object.keys(SCOPES) as Scope[];

/** Scopes a credential only gets when asked for by name: they destroy data, open a shell or spend money. */
export const OPT_IN_SCOPES: readonly Scope[] = AREAS.flatMap((a) => ('optIn' in a ? a.optIn : []));

/** What a key gets when it is minted without a scope list. */
export const DEFAULT_SCOPES: readonly Scope[] = ALL_SCOPES.filter((s) => !OPT_IN_SCOPES.includes(s));

export function isScope(value: string): value is Scope {
  return Object.hasOwn(SCOPES, value);
}
