/**
 * The one date format of the dashboard: "2026-12-23 16:22 UTC" — ISO order, 24-hour clock,
 * always UTC, so two people reading the same page (or a log line) see the same time.
 */
export function formatUtc(iso: string): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  const s = d.toISOString();
  return `${s.slice(0, 10)} ${s.slice(11, 16)} UTC`;
}

/** A date on a page: `<time>` with the exact instant in `datetime` and the tooltip; `none` when absent. */
export function When(props: { at: string | null | undefined; none?: string }) {
  if (!props.at) return <span class="muted">{props.none ?? '—'}</span>;
  return (
    <time dateTime={props.at} title={props.at}>
      {formatUtc(props.at)}
    </time>
  );
}

/** A state (server, delivery, ticket …) as a coloured badge, in words ("not_connected" reads "not connected"). */
export const StatusBadge = (props: { status: string }) => (
  <span class={`status status-${props.status}`}>{props.status.replace(/_/g, ' ')}</span>
);

/** Integer cents as money, "$1,234.50": the API keeps every amount in cents. */
export const money = (cents: number, currency = 'USD') =>
  (cents / 100).toLocaleString('en-US', { style: 'currency', currency });
