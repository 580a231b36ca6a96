import { useEffect, useState } from 'preact/hooks';
import { gql } from '../api.ts';
import { SecretWithCopy } from '../copy.tsx';
import { StatusBadge, When } from '../format.tsx';
import { useLive } from '../live-query.tsx';
import { WebhookForm, type WebhookFields } from './webhooks/form.tsx';
import { ManageWebhook, WEBHOOK_ROW } from './webhooks/manage.tsx';
import { ListTable } from '../list-table.tsx';
import { graphql } from '../graphql.ts';

const WEBHOOKS_QUERY = graphql('{ webhooks(first: 100) { nodes { ...WebhookRow } } }', [WEBHOOK_ROW]);

/**
 * The account's webhook subscriptions: the list, a form for a new one, and the chosen one's
 * actions (test event, pause, rotate, delete, edit) over its delivery log.
 */
export function Webhooks() {
  const [tick, setTick] = useState(0);
  const reload = () => setTick((t) => t + 1);
  const list = useLive(WEBHOOKS_QUERY, [], undefined, tick);
  const [selected, setSelected] = useState<string | null>(null);
  const [created, setCreated] = useState<{ url: string; secret: string } | null>(null);
  const [notice, setNotice] = useState('');
  // A new key empties the new-subscription form once one is added.
  const [formKey, setFormKey] = useState(0);
  const hooks = list.data?.webhooks.nodes;
  useEffect(() => {
    if (hooks && !hooks.some((w) => w.id === selected)) setSelected(hooks[0]?.id ?? null);
  }, [hooks]);
  const chosen = hooks?.find((w) => w.id === selected);

  const create = async (values: WebhookFields) => {
    const r = await gql(
      graphql(
        'mutation($url: String!, $events: [String!]!, $description: String) { webhookCreate(url: $url, events: $events, description: $description) { id url secret } }',
      ),
      { ...values },
    );
    setCreated(r.webhookCreate);
    setFormKey((k) => k + 1);
    setNotice('');
    setSelected(r.webhookCreate.id);
    reload();
  };

  return (
    <div>
      <h1>Webhooks</h1>
      <section class="card">
        <h2>Subscriptions</h2>
        {notice && (
          <p role="status" class="ok">
            {notice}
          </p>
        )}
        {list.error ? (
          <p class="error">{list.error}</p>
        ) : !hooks ? (
          <p class="muted">Loading…</p>
        ) : (
          // On a phone each subscription is a card (style.css: table.stack).
          <ListTable
            rows={hooks}
            empty="No subscriptions yet. Add one below to have the account's events sent to your URL."
            columns={['URL', 'Events', 'Status', 'Secret', 'Created']}
            actions
            stack
            testid="webhooks"
          >
            {(w) => (
              <tr key={w.id} class={w.id === selected ? 'selected' : ''} data-testid={`webhook-${w.id}`}>
                <td data-label="URL" class="wrap-anywhere">
                  {/* One child: on a phone the cell is a label-and-value grid. */}
                  <div>
                    <span class="mono small">{w.url}</span>
                    {w.description && <div class="muted small">{w.description}</div>}
                  </div>
                </td>
                <td data-label="Events" class="small wrap">
                  {w.events.join(', ')}
                </td>
                <td data-label="Status">
                  <StatusBadge status={w.isActive ? 'active' : 'paused'} />
                </td>
                <td data-label="Secret" class="mono small">
                  {w.secret}
                </td>
                <td data-label="Created">
                  <When at={w.createdAt} />
                </td>
                <td>
                  <button
                    type="button"
                    class="row-link"
                    aria-pressed={w.id === selected}
                    aria-label={`Manage ${w.url}`}
                    onClick={() => setSelected(w.id)}
                  >
                    Manage
                  </button>
                </td>
              </tr>
            )}
          </ListTable>
        )}
        <h3>New subscription</h3>
        <WebhookForm
          key={formKey}
          idPrefix="webhook-new"
          testid="webhook-new"
          initial={{ url: '', events: ['*'], description: '' }}
          submitLabel="Add subscription"
          busyLabel="Adding…"
          onSubmit={create}
        />
        {created && (
          <div class="notice-box" data-testid="created-secret">
            <p class="wrap-anywhere">Signing secret of {created.url}, shown this once:</p>
            <SecretWithCopy value={created.secret} id="created-secret" />
            <button type="button" class="link" onClick={() => setCreated(null)}>
              Done
            </button>
          </div>
        )}
      </section>
      {chosen && (
        <ManageWebhook
          key={chosen.id}
          webhook={chosen}
          onChanged={reload}
          onDeleted={(message) => {
            setNotice(message);
            setSelected(null);
            reload();
          }}
        />
      )}
    </div>
  );
}
