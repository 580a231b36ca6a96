import type { ComponentChildren, VNode } from 'preact';
import { Link } from './router.tsx';

/** What a click on a row's own control does already (a click there is not a click on the row). */
const CONTROLS = 'a, button, input, select, textarea, label, summary, details, dialog';

/**
 * A click anywhere on a table row (or list item) follows the row's own link, or presses its own
 * button (an invoice's "show lines"): the element marked `row-link` (RowLink). Controls of the row
 * keep their own click, and selecting text is not a click.
 */
function followRowLink(e: MouseEvent): void {
  const target = e.target as Element;
  if (target.closest(CONTROLS) || (getSelection()?.toString() ?? '') !== '') return;
  const own = target.closest('tr, li')?.querySelector<HTMLElement>('.row-link');
  if (!own) return;
  if (own instanceof HTMLAnchorElement && (e.metaKey || e.ctrlKey || e.shiftKey)) window.open(own.href, '_blank');
  else own.click();
}

/**
 * A table body whose rows each follow their own link on a click anywhere on them. The keyboard
 * reaches that link in its cell (Tab, Enter): the whole row is a larger target for a pointer, and
 * takes nothing from a keyboard.
 */
export function LinkedRows(props: { children: ComponentChildren; testid?: string }) {
  return (
    // biome-ignore lint/a11y/useKeyWithClickEvents: the row's own link, in its cell, is the keyboard's way (see above)
    <tbody onClick={followRowLink} data-testid={props.testid}>
      {props.children}
    </tbody>
  );
}

/** The same for a list (<ul>) whose items each hold a RowLink. */
export function LinkedList(props: { children: ComponentChildren; class?: string }) {
  return (
    // biome-ignore lint/a11y/useKeyWithClickEvents: the item's own link is the keyboard's way (see LinkedRows)
    <ul class={props.class} onClick={followRowLink}>
      {props.children}
    </ul>
  );
}

/** The link of a list's row to the thing's own page: a click anywhere on the row follows it (LinkedRows). */
export function RowLink(props: { href: string; children: ComponentChildren }) {
  return (
    <Link href={props.href} class="row-link">
      {props.children}
    </Link>
  );
}

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
      <LinkedRows>{props.rows.map((row, i) => props.children(row, i))}</LinkedRows>
    </table>
  );
  return props.stack ? table : <div class="table-wrap">{table}</div>;
}
