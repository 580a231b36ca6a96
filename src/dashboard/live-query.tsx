import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import type { TadaDocumentNode } from 'gql.tada';
import { gql, onEvent, refreshes, type VariablesArg } from './api.ts';
import { Link } from './router.tsx';

/**
 * A GraphQL read that re-runs whenever a live event or live change whose type starts with one of
 * `refreshOn` arrives, and when the live socket comes back after a drop. One read at a time: what arrives during a read asks for one more after it,
 * however much arrived, so a burst costs two reads and a late answer never replaces a newer one.
 * A section whose API is not available yet shows so instead of failing the page.
 */
export function useLive<T, V>(
  document: TadaDocumentNode<T, V>,
  refreshOn: string[],
  // biome-ignore lint/complexity/noBannedTypes: `{} extends V` holds exactly when V requires no variable.
  ...[variables, reloadKey]: {} extends V ? [variables?: V, reloadKey?: number] : [variables: V, reloadKey?: number]
) {
  const [state, setState] = useState<{ data?: T; error?: string }>({});
  useEffect(() => {
    let alive = true;
    let reading = false;
    let again = false;
    const load = () => {
      if (reading) {
        again = true;
        return;
      }
      reading = true;
      gql(document, ...([variables] as VariablesArg<V>))
        .then(
          (data) => alive && setState({ data }),
          (err: Error) => alive && setState({ error: err.message }),
        )
        .finally(() => {
          reading = false;
          if (alive && again) {
            again = false;
            load();
          }
        });
    };
    load();
    const off = onEvent((e) => {
      if (refreshes(e, refreshOn)) load();
    });
    return () => {
      alive = false;
      off();
    };
  }, [document, JSON.stringify(variables), reloadKey ?? 0]);
  return state;
}

export function Section<T>(props: {
  title: string;
  /** The section's own page, if the dashboard has one: the heading links there. */
  href?: string;
  testid: string;
  state: { data?: T; error?: string };
  children: (data: T) => ComponentChildren;
}) {
  const { data, error } = props.state;
  return (
    <section class="card" data-testid={props.testid}>
      <h2>{props.href ? <Link href={props.href}>{props.title}</Link> : props.title}</h2>
      {error ? (
        <p class="muted">Not available: {error}</p>
      ) : data === undefined ? (
        <p class="muted">Loading…</p>
      ) : (
        props.children(data)
      )}
    </section>
  );
}
