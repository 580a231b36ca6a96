import { useState } from 'preact/hooks';
import { gql } from '../../api.ts';
import { formatUtc, money } from '../../format.tsx';
import { Link } from '../../router.tsx';
import { type Addon, DialogButton, type SectionProps, useRun, whyNot } from './shared.tsx';
import { graphql } from '../../graphql.ts';

const WALLET = graphql('{ wallet { balanceUsdCents } }');
const ATTACH = graphql(
  `mutation($id: ID!, $addonId: String!) { serverAddonAttach(id: $id, addonId: $addonId) { name chargedUsdCents ips } }`,
);
const DETACH = graphql(
  `mutation($id: ID!, $addonId: String!) { serverAddonDetach(id: $id, addonId: $addonId) { releasedIps } }`,
);

/** Why an add-on cannot be attached now: the server's state (the API's rule), its stock, or one of its type attached. */
function attachWhy(serverWhy: string | null, a: Addon): string | null {
  if (serverWhy) return serverWhy;
  if (!a.available) return a.stockNote ?? 'Out of stock.';
  if (a.ownedByType) return 'An add-on of this type is attached: detach it first to change tier.';
  return null;
}

/** Add-ons: those attached (detach, no refund) and those offered, attached after the prorated charge is shown. */
export function Addons({ server: s, addons, onChanged }: SectionProps & { addons: Addon[] }) {
  // Read when a dialog opens, so the balance beside the charge is current (null: not readable with this session's scopes).
  const [balance, setBalance] = useState<number | null>(null);
  const readBalance = () => {
    setBalance(null);
    gql(WALLET).then(
      (d) => setBalance(d.wallet.balanceUsdCents),
      () => setBalance(null),
    );
  };
  const [done, setDone] = useState('');
  const { busy, error, run } = useRun();
  const serverWhy = whyNot(s, 'addonAttach');

  const attach = async (a: Addon) => {
    setDone('');
    const r = await run(`attach-${a.id}`, () =>
      gql(ATTACH, {
        id: s.id,
        addonId: a.id,
      }),
    );
    if (r) {
      const { name, chargedUsdCents, ips } = r.serverAddonAttach;
      setDone(
        `${name} attached: ${money(chargedUsdCents)} charged from your wallet.${ips.length ? ` New addresses: ${ips.join(', ')}.` : ''}`,
      );
    }
    onChanged();
  };
  const detach = async (a: Addon) => {
    setDone('');
    if (await run(`detach-${a.id}`, () => gql(DETACH, { id: s.id, addonId: a.id }))) setDone(`${a.name} detached.`);
    onChanged();
  };

  const short = (a: Addon) => balance !== null && a.proratedUsdCents > balance;
  return (
    <section class="card" data-testid="addons">
      <h2>Add-ons</h2>
      {addons.length === 0 ? (
        <p class="muted">No add-ons are offered for this server{s.pool ? ': it takes addresses from its pool' : ''}.</p>
      ) : (
        <>
          <p class="small muted">
            {addons.some((a) => a.active) ? 'Attached: ' : 'None attached yet. '}
            {addons
              .filter((a) => a.active)
              .map((a) => a.name)
              .join(', ')}
          </p>
          <table class="stack">
            <thead>
              <tr>
                <th scope="col">Add-on</th>
                <th scope="col" class="num">
                  Per month
                </th>
                <th scope="col">State</th>
                <th scope="col">
                  <span class="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {addons.map((a) => (
                <tr key={a.id} data-testid={`addon-${a.id}`}>
                  <td data-label="Add-on" class="wrap">
                    {a.name}
                  </td>
                  <td data-label="Per month" class="num">
                    {money(a.monthlyUsdCents)}
                  </td>
                  <td data-label="State">{a.active ? 'attached' : a.available ? 'offered' : 'out of stock'}</td>
                  <td>
                    <div class="row-actions">
                      {a.active ? (
                        <DialogButton
                          id={`detach-${a.id}`}
                          label="Detach"
                          title={`Detach ${a.name} from ${s.label}?`}
                          confirmLabel="Detach"
                          danger
                          busy={busy === `detach-${a.id}`}
                          disabledReason={whyNot(s, 'addonDetach')}
                          onConfirm={() => detach(a)}
                        >
                          <p>
                            Nothing is refunded{a.ipCount ? '; its addresses stop routing to the server at once' : ''}.
                            It is no longer billed from the next renewal.
                          </p>
                        </DialogButton>
                      ) : (
                        <DialogButton
                          id={`attach-${a.id}`}
                          label="Attach"
                          title={`Attach ${a.name} to ${s.label}?`}
                          confirmLabel={`Pay ${money(a.proratedUsdCents)} and attach`}
                          busy={busy === `attach-${a.id}`}
                          disabledReason={attachWhy(serverWhy, a)}
                          confirmBlocked={short(a)}
                          onOpen={readBalance}
                          onConfirm={() => attach(a)}
                        >
                          <div data-testid="attach-price">
                            <p>
                              <strong>{money(a.proratedUsdCents)} charged from your wallet now</strong>, prorated to the
                              end of the billing cycle{s.renewsAt ? ` (${formatUtc(s.renewsAt)})` : ''}; then{' '}
                              {money(a.monthlyUsdCents)} a month with the server.
                            </p>
                            {balance !== null && <p>Wallet balance: {money(balance)}</p>}
                            {short(a) && (
                              <p class="error">
                                The balance does not cover it. <Link href="/billing">Top up the wallet</Link>
                              </p>
                            )}
                          </div>
                        </DialogButton>
                      )}
                    </div>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      )}
      {error && <p class="error">{error.message}</p>}
      <p role="status" class="ok">
        {done}
      </p>
    </section>
  );
}
