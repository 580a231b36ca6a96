import { useState } from 'preact/hooks';
import { gql } from '../../api.ts';
import { ConfirmButton } from '../../confirm.tsx';
import { When } from '../../format.tsx';
import { ListTable } from '../../list-table.tsx';
import { useLive } from '../../live-query.tsx';
import { graphql } from '../../graphql.ts';

const SESSIONS = graphql(
  '{ accountSessions(first: 100) { edges { node { id current signedInWith browser clientAddress createdAt lastSeenAt } } } }',
);
const END = graphql('mutation($id: ID!) { accountSessionEnd(id: $id) { id } }');
const END_OTHERS = graphql('mutation { accountSessionsEndOthers { sessionsEnded } }');

/** The account's signed-in sessions: this browser marked, any other signed out from here. */
export function Sessions(props: { reloadKey: number }) {
  const [reload, setReload] = useState(0);
  const state = useLive(SESSIONS, [], undefined, props.reloadKey + reload);
  const [message, setMessage] = useState('');
  const [error, setError] = useState('');
  const act = async (what: () => Promise<string>) => {
    setError('');
    setMessage('');
    try {
      setMessage(await what());
      setReload((n) => n + 1);
    } catch (err) {
      setError((err as Error).message);
    }
  };
  if (state.error) return <p class="error">{state.error}</p>;
  if (!state.data) return <p class="muted">Loading…</p>;
  const rows = state.data.accountSessions.edges.map((e) => e.node);
  const others = rows.filter((r) => !r.current).length;
  return (
    <>
      <ListTable
        rows={rows}
        stack
        actions
        testid="sessions"
        empty="No session is signed in."
        columns={['Browser', 'Address', 'Signed in', 'Last seen']}
      >
        {(s) => (
          <tr key={s.id}>
            <td data-label="Browser">
              <span>
                {s.browser ?? 'Unknown browser'}
                {s.current && <strong> · this browser</strong>}
                {s.signedInWith === 'link' && <span class="muted small"> (sign-in link)</span>}
              </span>
            </td>
            <td data-label="Address" class="mono">
              {s.clientAddress ?? '—'}
            </td>
            <td data-label="Signed in">
              <When at={s.createdAt} />
            </td>
            <td data-label="Last seen">
              <When at={s.lastSeenAt} />
            </td>
            <td>
              {!s.current && (
                <ConfirmButton
                  label="Sign out"
                  question={`Sign out ${s.browser ?? 'this session'}?`}
                  detail={`The session from ${s.clientAddress ?? 'an unknown address'} ends now; whoever uses it must sign in again.`}
                  confirmLabel="Sign it out"
                  onConfirm={() =>
                    act(async () => {
                      await gql(END, { id: s.id });
                      return 'The session was signed out.';
                    })
                  }
                />
              )}
            </td>
          </tr>
        )}
      </ListTable>
      <div class="actions">
        <ConfirmButton
          label="Sign out every other session"
          question="Sign out every other session?"
          detail="Every browser signed in to this account but this one must sign in again."
          confirmLabel="Sign them out"
          disabledReason={others === 0 ? 'No other session is signed in.' : null}
          onConfirm={() =>
            act(async () => {
              const { accountSessionsEndOthers: r } = await gql(END_OTHERS);
              return `${r.sessionsEnded} session${r.sessionsEnded === 1 ? ' was' : 's were'} signed out.`;
            })
          }
        />
      </div>
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      <p role="status" class="ok">
        {message}
      </p>
    </>
  );
}
