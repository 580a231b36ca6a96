import { useState } from 'preact/hooks';
import { gql } from '../../api.ts';
import { ConfirmButton, DisabledReason, disabledProps } from '../../confirm.tsx';
import { SecretWithCopy } from '../../copy.tsx';
import { StatusBadge } from '../../format.tsx';
import { Deliveries } from './deliveries.tsx';
import { WebhookForm, type WebhookFields } from './form.tsx';
import { graphql, type ResultOf } from '../../graphql.ts';

/** A subscription as the page reads it. */
export const WEBHOOK_ROW = graphql(
  'fragment WebhookRow on Webhook { id url description events isActive secret createdAt updatedAt }',
);
type WebhookRow = ResultOf<typeof WEBHOOK_ROW>;

const UPDATE = graphql(`mutation($id: ID!, $url: String, $events: [String!], $description: String, $isActive: Boolean) {
  webhookUpdate(id: $id, url: $url, events: $events, description: $description, isActive: $isActive) { id }
}`);

const PAUSED_REASON = 'The webhook is paused: resume it to send a test event.';

/**
 * One subscription's actions and its delivery log: send a test event, pause or resume, rotate the
 * signing secret (the new one shown once), delete, and edit what webhookUpdate takes.
 * `onChanged` re-reads the list; `onDeleted` leaves the subscription.
 */
export function ManageWebhook(props: { webhook: WebhookRow; onChanged(): void; onDeleted(message: string): void }) {
  const w = props.webhook;
  const [busy, setBusy] = useState<'test' | 'pause' | 'rotate' | 'delete' | null>(null);
  const [status, setStatus] = useState<{ error: boolean; text: string }>({ error: false, text: '' });
  const [secret, setSecret] = useState<string | null>(null);
  const [logKey, setLogKey] = useState(0);
  const [editing, setEditing] = useState(false);

  /** Runs one action with its button busy; its refusal is the status line. */
  const act = async (which: NonNullable<typeof busy>, run: () => Promise<string>) => {
    setBusy(which);
    setStatus({ error: false, text: '' });
    try {
      setStatus({ error: false, text: await run() });
    } catch (err) {
      setStatus({ error: true, text: (err as Error).message });
    } finally {
      setBusy(null);
    }
  };

  const sendTest = () =>
    act('test', async () => {
      await gql(graphql('mutation($id: ID!) { webhookTest(id: $id) { id } }'), { id: w.id });
      setLogKey((k) => k + 1);
      return 'Test event queued: its delivery is at the top of the log below.';
    });
  const setActive = (isActive: boolean) =>
    act('pause', async () => {
      await gql(UPDATE, { id: w.id, isActive });
      props.onChanged();
      return isActive ? 'Resumed: waiting deliveries are sent now.' : 'Paused: deliveries wait until you resume.';
    });
  const rotate = () =>
    act('rotate', async () => {
      const r = await gql(graphql('mutation($id: ID!) { webhookRotateSecret(id: $id) { secret } }'), { id: w.id });
      setSecret(r.webhookRotateSecret.secret);
      props.onChanged();
      return 'Secret rotated: the old one no longer signs.';
    });
  const remove = () =>
    act('delete', async () => {
      await gql(graphql('mutation($id: ID!) { webhookDelete(id: $id) { id } }'), { id: w.id });
      props.onDeleted(`Deleted the webhook to ${w.url}.`);
      return '';
    });
  const save = async (values: WebhookFields) => {
    await gql(UPDATE, { id: w.id, ...values });
    props.onChanged();
    setEditing(false);
    setStatus({ error: false, text: 'Changes saved.' });
  };

  return (
    <>
      <section class="card" data-testid="webhook-manage" aria-labelledby="webhook-manage-title">
        <h2 id="webhook-manage-title" class="wrap-anywhere">
          {w.url} <StatusBadge status={w.isActive ? 'active' : 'paused'} />
        </h2>
        <div class="actions">
          <button
            type="button"
            onClick={sendTest}
            {...disabledProps('Send test event', w.isActive ? null : PAUSED_REASON)}
            disabled={!w.isActive || busy !== null}
          >
            {busy === 'test' ? 'Sending…' : 'Send test event'}
          </button>
          <DisabledReason label="Send test event" reason={w.isActive ? null : PAUSED_REASON} />
          <button type="button" class="secondary" disabled={busy !== null} onClick={() => setActive(!w.isActive)}>
            {busy === 'pause' ? (w.isActive ? 'Pausing…' : 'Resuming…') : w.isActive ? 'Pause' : 'Resume'}
          </button>
          <ConfirmButton
            label={busy === 'rotate' ? 'Rotating…' : 'Rotate secret'}
            question="Rotate the signing secret?"
            detail="The current secret stops signing at once: your endpoint must verify with the new one, shown once."
            confirmLabel="Rotate secret"
            onConfirm={rotate}
            disabledReason={busy !== null ? 'Another action is under way.' : null}
          />
          <ConfirmButton
            label={busy === 'delete' ? 'Deleting…' : 'Delete'}
            question="Delete this webhook?"
            detail={`Nothing more is sent to ${w.url}; its queued deliveries and its delivery log are deleted too.`}
            confirmLabel="Delete webhook"
            onConfirm={remove}
            disabledReason={busy !== null ? 'Another action is under way.' : null}
          />
        </div>
        <p role="status" class={status.error ? 'error' : 'ok'}>
          {status.text}
        </p>
        {secret && (
          <div class="notice-box" data-testid="new-secret">
            <p>New signing secret, shown this once:</p>
            <SecretWithCopy value={secret} id="rotated-secret" />
            <button type="button" class="link" onClick={() => setSecret(null)}>
              Done
            </button>
          </div>
        )}
        <button
          type="button"
          class="link"
          aria-expanded={editing}
          aria-controls="webhook-edit-form"
          onClick={() => setEditing(!editing)}
        >
          Edit URL, kinds or description
        </button>
        {editing && (
          <div id="webhook-edit-form">
            <WebhookForm
              key={`${w.id} ${w.updatedAt}`}
              idPrefix="webhook-edit"
              testid="webhook-edit"
              initial={{ url: w.url, events: w.events, description: w.description }}
              submitLabel="Save changes"
              busyLabel="Saving…"
              onSubmit={save}
            />
          </div>
        )}
      </section>
      <section class="card">
        <h2>Delivery log</h2>
        <Deliveries webhookId={w.id} reloadKey={logKey} />
      </section>
    </>
  );
}
