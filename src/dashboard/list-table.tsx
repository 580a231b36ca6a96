import type { ComponentChildren, VNode } from 'preact';

/** A column's header: its text, or its text and a class (such as "num" for a right-aligned figure). */
export type ColumnHead = string | { label: string; class: string };

/**
 * A list as a table, or its empty state when it has no rows. On a phone a `stack` table shows each
 * row as a card (style.css: table.stack; cells then need data-label); otherwise the table scrolls
 * sideways inside a table-wrap so that the page does not.
 */
export function ListTable<Row>(props: {
  rows: readonly Row[];
  /** What the muted line says in place of an empty table. */
  empty: ComponentChildren;
  columns: readonly ColumnHead[];
  /** A last column of buttons, whose header only a screen reader reads. */
  actions?: boolean;
  stack?: boolean;
  class?: string;
  testid?: string;
  children(row: Row, index: number): VNode;
}) {
  if (props.rows.length === 0) return <p class="muted">{props.empty}</p>;
  const table = (
    <table
      class={[props.stack ? 'stack' : '', props.class ?? ''].join(' ').trim() || undefined}
      data-testid={props.testid}
    >
      <thead>
        <tr>
          {props.columns.map((c) =>
            typeof c === 'string' ? (
              <th key={c} scope="col">
                {c}
              </th>
            ) : (
              <th key={c.label} scope="col" class={c.class}>
                {c.label}
              </th>
            ),
          )}
          {props.actions && (
            <th scope="col">
              <span class="visually-hidden">Actions</span>
            </th>
          )}
        </tr>
      </thead>
      <tbody>{props.rows.map((row, i) => props.children(row, i))}</tbody>
    </table>
  );
  return props.stack ? table : <div class="table-wrap">{table}</div>;
}
