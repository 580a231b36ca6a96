import { useEffect, useState } from 'preact/hooks';
import { gql } from '../../api.ts';
import { ConfirmButton } from '../../confirm.tsx';
import { Field, FormAlert, useFormRequest } from '../../field.tsx';
import { StatusBadge, When } from '../../format.tsx';
import { useLive } from '../../live-query.tsx';
import { Link, BackLink, PageFailed } from '../../router.tsx';
import { graphql, type ResultOf } from '../../graphql.ts';

const TICKET_DETAIL = graphql(`fragment TicketDetail on Ticket {
  id number subject status priority department createdAt lastReplyAt closedAt messages { id author body createdAt }
}`);
type TicketDetail = ResultOf<typeof TICKET_DETAIL>;
const TICKET_QUERY = graphql('query($id: ID!) { ticket(id: $id) { ...TicketDetail } }', [TICKET_DETAIL]);
const REPLY = graphql('mutation($id: ID!, $body: String!) { ticketReply(id: $id, body: $body) { ...TicketDetail } }', [
  TICKET_DETAIL,
]);
const CLOSE = graphql('mutation($id: ID!) { ticketClose(id: $id) { ...TicketDetail } }', [TICKET_DETAIL]);

/** What each state means for the person waiting. */
const STATUS_TEXT: Record<string, string> = {
  open: 'Waiting on support.',
  answered: 'Support has answered: waiting on you.',
  closed: 'Closed: it takes no more replies.',
};

/** The thread, oldest first: who wrote each message and when. */
function Thread(props: { messages: TicketDetail['messages'] }) {
  return (
    <ol class="thread" data-testid="thread">
      {props.messages.map((m) => (
        <li key={m.id} class={m.author === 'staff' ? 'staff' : 'customer'} data-testid="message">
          <div class="meta">
            <span class="who-said">{m.author === 'staff' ? 'Support' : 'You'}</span>
            <When at={m.createdAt} />
          </div>
          <p class="body">{m.body}</p>
        </li>
      ))}
    </ol>
  );
}

function Reply(props: { ticket: TicketDetail; onSent(t: TicketDetail): void }) {
  const [body, setBody] = useState('');
  const { errors, setErrors, busy, send } = useFormRequest(['body']);
  const submit = async (e: Event) => {
    e.preventDefault();
    if (!body.trim()) {
      setErrors({ body: 'Write your reply first.' });
      return;
    }
    return send(async () => {
      const r = await gql(REPLY, { id: props.ticket.id, body });
      setBody('');
      props.onSent(r.ticketReply);
    });
  };
  return (
    <form onSubmit={submit} noValidate aria-busy={busy} data-testid="reply">
      <Field label="Your reply" id="ticket-reply" error={errors.body}>
        {(a) => <textarea {...a} rows={5} value={body} onInput={(e) => setBody(e.currentTarget.value)} />}
      </Field>
      <FormAlert error={errors.form} />
      <button type="submit" disabled={busy}>
        {busy ? 'Sending…' : 'Send reply'}
      </button>
    </form>
  );
}

/** /tickets/:id: a ticket's thread, updated live when support answers; reply or close it. */
export function TicketPage(props: { id: string }) {
  // A reply or close answers the ticket as it now is: shown at once, until the read that follows.
  const [mine, setMine] = useState<TicketDetail | null>(null);
  const [reload, setReload] = useState(0);
  const [closing, setClosing] = useState<{ busy?: boolean; error?: string }>({});
  const state = useLive(TICKET_QUERY, ['ticket.'], { id: props.id }, reload);
  useEffect(() => setMine(null), [state.data]);
  const back = <BackLink href="/tickets" label="Support" />;
  if (state.error) return <PageFailed back={back} title="Ticket" error={state.error} />;
  const t = mine ?? state.data?.ticket;
  if (!t) return <p class="muted">Loading…</p>;
  const changed = (next: TicketDetail) => {
    setMine(next);
    setReload((n) => n + 1);
  };
  const close = async () => {
    setClosing({ busy: true });
    try {
      const r = await gql(CLOSE, { id: t.id });
      changed(r.ticketClose);
      setClosing({});
    } catch (err) {
      setClosing({ error: (err as Error).message });
    }
  };
  return (
    <div>
      {back}
      <h1>
        {t.subject}{' '}
        <span data-testid="ticket-status">
          <StatusBadge status={t.status} />
        </span>
      </h1>
      <section class="card">
        <dl class="facts">
          <dt>Number</dt>
          <dd class="mono">{t.number}</dd>
          <dt>Status</dt>
          <dd>{STATUS_TEXT[t.status] ?? t.status}</dd>
          <dt>Department</dt>
          <dd>{t.department}</dd>
          <dt>Priority</dt>
          <dd>{t.priority}</dd>
          <dt>Opened</dt>
          <dd>
            <When at={t.createdAt} />
          </dd>
          <dt>Last update</dt>
          <dd>
            <When at={t.lastReplyAt} />
          </dd>
          {t.closedAt && (
            <>
              <dt>Closed</dt>
              <dd>
                <When at={t.closedAt} />
              </dd>
            </>
          )}
        </dl>
      </section>
      <section class="card">
        <h2>Messages</h2>
        <Thread messages={t.messages} />
        {t.status === 'closed' ? (
          <p class="muted">
            This ticket is closed. To follow up, <Link href="/tickets/new">open a new ticket</Link> and mention{' '}
            {t.number}.
          </p>
        ) : (
          <Reply ticket={t} onSent={changed} />
        )}
      </section>
      {t.status !== 'closed' && (
        <section class="card" data-testid="close-ticket">
          <h2>Close the ticket</h2>
          <p class="muted">Close it once your question is answered; a closed ticket takes no more replies.</p>
          <div class="actions">
            <ConfirmButton
              label="Close ticket"
              question={`Close ${t.number}?`}
              detail="The ticket takes no more replies; to follow up you open a new one."
              confirmLabel="Close ticket"
              onConfirm={close}
              disabledReason={closing.busy ? 'Closing…' : null}
            />
          </div>
          <p role="status" class={closing.error ? 'error' : 'muted'}>
            {closing.error ?? (closing.busy ? 'Closing…' : '')}
          </p>
        </section>
      )}
    </div>
  );
}
