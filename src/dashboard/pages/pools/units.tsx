import { useEffect, useState } from 'preact/hooks';
import { gql, HttpError, type VariablesArg } from '../../api.ts';
import './pools.css';
import { graphql, type TadaDocumentNode } from '../../graphql.ts';

// What every pool page shares: the four units a pool is sized in, their sliders, and a debounced quote.

export type Unit = 'vcpu' | 'ram2gb' | 'disk100' | 'ip16';
export type Units = Record<Unit, number>;
export type Bounds = Record<Unit, { min: number; max: number }>;

export const UNITS: Unit[] = ['vcpu', 'ram2gb', 'disk100', 'ip16'];

/** Each unit in words: the slider's label, and its value in the figures a person thinks in (one unit is 2 GB, 100 GB, 16 addresses). */
export const UNIT_TEXT: Record<Unit, { label: string; value: (n: number) => string }> = {
  vcpu: { label: 'vCPUs', value: (n) => `${n} vCPU` },
  ram2gb: { label: 'RAM', value: (n) => `${n * 2} GB` },
  disk100: { label: 'Disk', value: (n) => `${n * 100} GB` },
  ip16: { label: 'IPv4 addresses', value: (n) => `${n * 16} addresses` },
};

/** How far each unit of a pool may go (PoolBounds), spread into the pool pages' reads. */
export const BOUNDS = graphql(
  'fragment Bounds on PoolBounds { vcpu { min max } ram2gb { min max } disk100 { min max } ip16 { min max } }',
);

/** "8 vCPU · 16 GB RAM · 200 GB disk · 16 IPv4": a pool's shape in one line. */
export const shapeText = (q: { vcpu: number; ramMb: number; diskGb: number; ips: number }) =>
  `${q.vcpu} vCPU · ${q.ramMb / 1024} GB RAM · ${q.diskGb} GB disk · ${q.ips} IPv4`;

export const sameUnits = (a: Units, b: Units) => UNITS.every((u) => a[u] === b[u]);

export const clampUnits = (units: Units, bounds: Bounds): Units =>
  Object.fromEntries(UNITS.map((u) => [u, Math.min(bounds[u].max, Math.max(bounds[u].min, units[u]))])) as Units;

export const unitsOf = (p: Units): Units => ({ vcpu: p.vcpu, ram2gb: p.ram2gb, disk100: p.disk100, ip16: p.ip16 });

/** The attributes that tie an input to its error (and hint) for assistive tech. */
export function described(error: string | undefined, errorId: string, hintId?: string) {
  const ids = [hintId, error ? errorId : undefined].filter(Boolean).join(' ');
  return { 'aria-invalid': error ? ('true' as const) : undefined, 'aria-describedby': ids || undefined };
}

/**
 * One range input per unit, each with its label, its value beside it (also its aria-valuetext)
 * and its bounds; the arrow keys move it one unit. `errors` holds a refusal that names a unit.
 */
export function UnitSliders(props: {
  idPrefix: string;
  units: Units;
  bounds: Bounds;
  /** A hint per unit under its slider (what one step is and costs). */
  hints?: Partial<Record<Unit, string>>;
  errors?: Partial<Record<string, string>>;
  disabled?: boolean;
  onChange(units: Units): void;
}) {
  return (
    <div class="sliders">
      {UNITS.map((u) => {
        const id = `${props.idPrefix}-${u}`;
        const { min, max } = props.bounds[u];
        const text = UNIT_TEXT[u].value(props.units[u]);
        const error = props.errors?.[u];
        return (
          <div class="slider" key={u}>
            <div class="slider-head">
              <label for={id}>{UNIT_TEXT[u].label}</label>
              <output for={id} data-testid={`${id}-value`}>
                {text}
              </output>
            </div>
            <input
              id={id}
              type="range"
              min={min}
              max={max}
              step={1}
              value={props.units[u]}
              aria-valuetext={text}
              disabled={props.disabled}
              onInput={(e) => props.onChange({ ...props.units, [u]: Number(e.currentTarget.value) })}
              {...described(error, `${id}-error`, props.hints?.[u] ? `${id}-hint` : undefined)}
            />
            <div class="slider-scale small muted" aria-hidden="true">
              <span>{UNIT_TEXT[u].value(min)}</span>
              <span>{UNIT_TEXT[u].value(max)}</span>
            </div>
            {props.hints?.[u] && (
              <p id={`${id}-hint`} class="small muted slider-hint">
                {props.hints[u]}
              </p>
            )}
            {error && (
              <p id={`${id}-error`} class="error field-error">
                {error}
              </p>
            )}
          </div>
        );
      })}
    </div>
  );
}

/** A quote's state: `pending` while the selection waits or is being priced, so no stale price is taken as current. */
export interface QuoteState<T> {
  quote?: T;
  pending: boolean;
  error?: HttpError;
}

/**
 * Prices `variables` with `query` a moment after they stop changing (a slider dragged
 * across its range asks once, not at every step); null variables ask nothing.
 */
export function useQuote<T, V>(query: TadaDocumentNode<T, V>, variables: V | null, delayMs = 300): QuoteState<T> {
  const key = variables ? JSON.stringify(variables) : '';
  const [state, setState] = useState<QuoteState<T>>({ pending: Boolean(variables) });
  useEffect(() => {
    if (!variables) {
      setState({ pending: false });
      return;
    }
    let alive = true;
    setState((s) => ({ ...s, pending: true, error: undefined }));
    const timer = setTimeout(() => {
      gql(query, ...([variables] as VariablesArg<V>)).then(
        (quote) => alive && setState({ quote, pending: false }),
        (err: Error) =>
          alive && setState({ pending: false, error: err instanceof HttpError ? err : new HttpError(0, err.message) }),
      );
    }, delayMs);
    return () => {
      alive = false;
      clearTimeout(timer);
    };
  }, [query, key]);
  return state;
}

/** A refusal about money: the page offers the way to the wallet. */
