import { useEffect, useRef, useState } from 'preact/hooks';
import { gql } from '../api.ts';
import { money, StatusBadge, When } from '../format.tsx';
import { Section, useLive } from '../live-query.tsx';
import { LinkedRows } from '../list-table.tsx';
import { graphql, type ResultOf } from '../graphql.ts';

const INVOICES_QUERY = graphql(`query($page: Int, $limit: Int) { invoices(page: $page, first: $limit) {
  nodes { id number status totalUsdCents currency dueAt paidAt paidWith
    items { description amountUsdCents periodStart periodEnd } }
  totalCount pageInfo { hasNextPage }
} }`);
type Invoice = ResultOf<typeof INVOICES_QUERY>['invoices']['nodes'][number];

const LIMIT = 20;

/** What an invoice can be paid with, as the API names it and as the page says it. */
const PAY_METHODS = [
  ['wallet', 'Wallet'],
  ['card', 'Card'],
  ['online', 'Online payment'],
  ['crypto', 'Crypto'],
] as const;

/**
 * The payment's confirmation, in the confirm dialog's style (Cancel focused first, Escape
 * cancels): the method is chosen here, so the table keeps one button per invoice.
 */
function PayDialog(props: {
  invoice: Invoice | null;
  balance?: number;
  onClose(): void;
  onPay(gateway: string): void;
}) {
  const dialog = useRef<HTMLDialogElement>(null);
  const [method, setMethod] = useState('wallet');
  const { invoice } = props;
  useEffect(() => {
    if (invoice) {
      setMethod('wallet');
      dialog.current?.showModal();
    }
  }, [invoice?.id]);
  const close = () => {
    dialog.current?.close();
    props.onClose();
  };
  const total = invoice ? money(invoice.totalUsdCents, invoice.currency) : '';
  return (
    <dialog
      ref={dialog}
      class="confirm"
      aria-labelledby="pay-title"
      onCancel={(e) => {
        e.preventDefault();
        close();
      }}
    >
      <h2 id="pay-title">Pay {invoice?.number}?</h2>
      <p>
        {total} will be charged{method === 'wallet' ? ' to your wallet' : ''}. This cannot be undone.
      </p>
      <label class="dialog-field">
        Pay with
        <select name="gateway" value={method} onChange={(e) => setMethod(e.currentTarget.value)}>
          {PAY_METHODS.map(([value, label]) => (
            <option key={value} value={value}>
              {value === 'wallet' && props.balance !== undefined ? `${label} (${money(props.balance)})` : label}
            </option>
          ))}
        </select>
      </label>
      <div class="actions">
        <button type="button" class="secondary" autofocus onClick={close}>
          Cancel
        </button>
        <button
          type="button"
          onClick={() => {
            close();
            props.onPay(method);
          }}
        >
          Pay {total}
        </button>
      </div>
    </dialog>
  );
}

function Lines(props: { invoice: Invoice }) {
  return (
    <ul class="plain lines">
      {props.invoice.items.map((item, i) => (
        <li key={i}>
          <span class="wrap">
            {item.description}
            {item.periodStart && (
              <span class="muted small">
                {' '}
                (<When at={item.periodStart} /> – <When at={item.periodEnd} />)
              </span>
            )}
          </span>
          <span class="num">{money(item.amountUsdCents, props.invoice.currency)}</span>
        </li>
      ))}
    </ul>
  );
}

/** The account's invoices, newest first, by page; each opens its lines, and an open one can be paid. */
export function Invoices(props: { reloadKey: number; balance?: number; onPaid(): void }) {
  const [page, setPage] = useState(1);
  const state = useLive(INVOICES_QUERY, ['invoice.'], { page, limit: LIMIT }, props.reloadKey);
  const [open, setOpen] = useState<Set<string>>(new Set());
  const [paying, setPaying] = useState<Invoice | null>(null);
  const [busy, setBusy] = useState<string | null>(null);
  // A refusal stays beside the invoice it belongs to (e.g. a wallet too small for it).
  const [errors, setErrors] = useState<Record<string, string>>({});

  const toggle = (id: string) =>
    setOpen((s) => {
      const next = new Set(s);
      if (!next.delete(id)) next.add(id);
      return next;
    });

  const pay = async (invoice: Invoice, gateway: string) => {
    setBusy(invoice.id);
    setErrors(({ [invoice.id]: _, ...rest }) => rest);
    try {
      await gql(graphql('mutation($id: ID!, $g: String!) { invoicePay(id: $id, gateway: $g) { id status } }'), {
        id: invoice.id,
        g: gateway,
      });
      props.onPaid();
    } catch (err) {
      setErrors((e) => ({ ...e, [invoice.id]: (err as Error).message }));
    } finally {
      setBusy(null);
    }
  };

  return (
    <Section title="Invoices" testid="invoices" state={state}>
      {(d) => {
        const { nodes: data, totalCount, pageInfo } = d.invoices;
        const total = totalCount ?? 0;
        const hasMore = pageInfo.hasNextPage;
        if (data.length === 0) return <p class="muted">No invoices yet.</p>;
        const pages = Math.max(1, Math.ceil(total / LIMIT));
        return (
          <>
            <table class="stack">
              <thead>
                <tr>
                  <th scope="col">Number</th>
                  <th scope="col">Status</th>
                  <th scope="col" class="num">
                    Total
                  </th>
                  <th scope="col">Due</th>
                  <th scope="col">
                    <span class="visually-hidden">Actions</span>
                  </th>
                </tr>
              </thead>
              {data.map((inv) => {
                const error = errors[inv.id];
                return (
                  // One tbody per invoice: its row and, when opened, its lines.
                  <LinkedRows key={inv.id} testid={`invoice-${inv.number}`}>
                    <tr>
                      <td data-label="Number">
                        <button
                          type="button"
                          class="link mono row-link"
                          aria-expanded={open.has(inv.id)}
                          aria-controls={`lines-${inv.id}`}
                          title="Show the invoice's lines"
                          onClick={() => toggle(inv.id)}
                        >
                          {open.has(inv.id) ? '▾' : '▸'} {inv.number}
                        </button>
                      </td>
                      <td data-label="Status" data-testid="invoice-status">
                        <StatusBadge status={inv.status} />
                      </td>
                      <td data-label="Total" class="num">
                        {money(inv.totalUsdCents, inv.currency)}
                      </td>
                      <td data-label="Due">
                        <When at={inv.dueAt} />
                      </td>
                      <td>
                        {inv.status === 'open' ? (
                          <div class="pay">
                            <button
                              type="button"
                              disabled={busy === inv.id}
                              aria-describedby={error ? `pay-error-${inv.id}` : undefined}
                              onClick={() => setPaying(inv)}
                            >
                              {busy === inv.id ? 'Paying…' : 'Pay'}
                            </button>
                            {error && (
                              <span id={`pay-error-${inv.id}`} class="error" role="alert">
                                {error}
                              </span>
                            )}
                          </div>
                        ) : inv.paidAt ? (
                          <span class="muted small">
                            Paid{inv.paidWith ? ` by ${inv.paidWith}` : ''} <When at={inv.paidAt} />
                          </span>
                        ) : null}
                      </td>
                    </tr>
                    {open.has(inv.id) && (
                      <tr id={`lines-${inv.id}`} class="lines-row">
                        <td colSpan={5}>
                          <Lines invoice={inv} />
                        </td>
                      </tr>
                    )}
                  </LinkedRows>
                );
              })}
            </table>
            {(page > 1 || hasMore) && (
              <div class="actions">
                <button type="button" class="secondary" disabled={page === 1} onClick={() => setPage(page - 1)}>
                  Newer
                </button>
                <span class="muted small">
                  Page {page} of {pages}
                </span>
                <button type="button" class="secondary" disabled={!hasMore} onClick={() => setPage(page + 1)}>
                  Older
                </button>
              </div>
            )}
            <PayDialog
              invoice={paying}
              balance={props.balance}
              onClose={() => setPaying(null)}
              onPay={(gateway) => paying && void pay(paying, gateway)}
            />
          </>
        );
      }}
    </Section>
  );
}
