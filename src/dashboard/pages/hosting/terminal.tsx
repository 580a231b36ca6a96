import { useState } from 'preact/hooks';
import { gql } from '../../api.ts';
import { ConfirmButton, DisabledReason, disabledProps } from '../../confirm.tsx';
import { When } from '../../format.tsx';
import { useLive } from '../../live-query.tsx';
import { graphql, type ResultOf } from '../../graphql.ts';

const ACCESS_QUERY = graphql(
  'query($id: ID!) { hostingSshAccess(id: $id) { enabled enabledAt session { id expiresAt } } }',
);
const ENABLE_MUTATION = graphql('mutation($id: ID!) { hostingSshAccessEnable(id: $id) { enabled } }');
const LAUNCH_MUTATION = graphql('mutation($id: ID!) { hostingSshLaunch(id: $id) { sessionId url expiresAt } }');
type Launched = ResultOf<typeof LAUNCH_MUTATION>['hostingSshLaunch'];
const STOP_MUTATION = graphql('mutation($id: ID!) { hostingSshStop(id: $id) { stopped sessionId } }');

/**
 * Terminal tab: browser SSH. Access is enabled once (a confirmed, account-level choice); each
 * launch opens a session of 15 minutes whose URL carries its one-time token, so the URL is shown
 * only to the launch that made it.
 */
export function TerminalPanel(props: { id: string }) {
  const [reload, setReload] = useState(0);
  const state = useLive(ACCESS_QUERY, [], { id: props.id }, reload);
  const [busy, setBusy] = useState<'enable' | 'launch' | 'stop' | null>(null);
  const [launched, setLaunched] = useState<Launched | null>(null);
  const [message, setMessage] = useState<{ ok: boolean; text: string } | null>(null);
  const refresh = () => setReload((n) => n + 1);

  const act = async (kind: 'enable' | 'launch' | 'stop', work: () => Promise<string>) => {
    setBusy(kind);
    setMessage(null);
    try {
      setMessage({ ok: true, text: await work() });
      refresh();
    } catch (err) {
      setMessage({ ok: false, text: (err as Error).message });
    }
    setBusy(null);
  };

  const launch = () =>
    act('launch', async () => {
      const { hostingSshLaunch } = await gql(LAUNCH_MUTATION, { id: props.id });
      setLaunched(hostingSshLaunch);
      // A new tab for the terminal; noopener, so it cannot reach back into the console.
      window.open(hostingSshLaunch.url, '_blank', 'noopener');
      return `Session ${hostingSshLaunch.sessionId} launched.`;
    });

  const stop = () =>
    act('stop', async () => {
      const { hostingSshStop } = await gql(STOP_MUTATION, { id: props.id });
      setLaunched(null);
      return hostingSshStop.stopped ? `Session ${hostingSshStop.sessionId} stopped.` : 'No session was live.';
    });

  const access = state.data?.hostingSshAccess;
  const live = access?.session ?? null;
  const stopBlocked =
    busy === 'stop' ? null : busy ? 'Wait for the current action to finish.' : live ? null : 'No session is live.';
  return (
    <section class="card" data-testid="hosting-terminal" aria-busy={busy !== null || (!state.data && !state.error)}>
      <h2>Terminal</h2>
      {state.error ? (
        <p class="error">{state.error}</p>
      ) : !access ? (
        <p class="muted">Loading…</p>
      ) : !access.enabled ? (
        <>
          <p>
            Browser SSH is off. Once enabled, you can open a shell on the account in a browser tab, for 15 minutes per
            session.
          </p>
          <ConfirmButton
            label={busy === 'enable' ? 'Enabling…' : 'Enable browser SSH'}
            question="Enable browser SSH?"
            detail="Anyone with access to this console (or an API key with hosting:manage) can then open a shell on the account."
            confirmLabel="Enable"
            disabledReason={busy ? 'Wait for the current action to finish.' : null}
            onConfirm={() =>
              act('enable', async () => {
                await gql(ENABLE_MUTATION, { id: props.id });
                return 'Browser SSH enabled.';
              })
            }
          />
        </>
      ) : (
        <>
          <dl class="facts">
            <dt>Browser SSH</dt>
            <dd data-testid="ssh-state">
              enabled <When at={access.enabledAt} />
            </dd>
            <dt>Session</dt>
            <dd data-testid="ssh-session">
              {live ? (
                <>
                  <span class="mono">{live.id}</span>, until <When at={live.expiresAt} />
                </>
              ) : (
                'none live'
              )}
            </dd>
          </dl>
          {launched && live?.id === launched.sessionId && (
            <p class="small">
              <a href={launched.url} target="_blank" rel="noopener noreferrer">
                Open the terminal
              </a>{' '}
              <span class="muted">(this link works until the session ends; it is shown only here)</span>
            </p>
          )}
          <div class="actions">
            <button type="button" onClick={() => void launch()} disabled={busy !== null}>
              {busy === 'launch' ? 'Launching…' : live ? 'Launch a new session' : 'Launch terminal'}
            </button>
            <button
              type="button"
              class="secondary"
              onClick={() => void stop()}
              {...disabledProps('Stop session', stopBlocked)}
            >
              {busy === 'stop' ? 'Stopping…' : 'Stop session'}
            </button>
            <DisabledReason label="Stop session" reason={stopBlocked} />
          </div>
        </>
      )}
      {message && (
        <p role={message.ok ? 'status' : 'alert'} class={message.ok ? 'ok' : 'error'}>
          {message.text}
        </p>
      )}
    </section>
  );
}
