import { useState } from 'preact/hooks';
import { gql } from '../../api.ts';
import { StatusBadge, When } from '../../format.tsx';
import { Section, useLive } from '../../live-query.tsx';
import { Outcome, useCall } from './panel-kit.tsx';
import { graphql } from '../../graphql.ts';

const WAF_QUERY = graphql(
  'query($id: ID!) { hostingWaf(id: $id) { enabled mode ruleset blockedRequests24h logAccess { active expiresAt } } }',
);

/**
 * Firewall tab: the web application firewall's state, and temporary access to its log (the API
 * grants the access for an hour; it does not serve the log itself).
 */
export function FirewallPanel(props: { id: string }) {
  const [reload, setReload] = useState(0);
  const state = useLive(WAF_QUERY, ['hosting.'], { id: props.id }, reload);
  const call = useCall();
  const [done, setDone] = useState('');

  const request = async () => {
    setDone('');
    const r = await call.run(() =>
      gql(graphql('mutation($id: ID!) { hostingWafAccessRequest(id: $id) { active expiresAt } }'), { id: props.id }),
    );
    if (r) setDone('Log access granted.');
    setReload((n) => n + 1);
  };

  return (
    <Section title="Firewall" testid="hosting-firewall" state={state}>
      {({ hostingWaf: waf }) => (
        <>
          <dl class="facts">
            <dt>Firewall</dt>
            <dd>
              <StatusBadge status={waf.enabled ? 'active' : 'off'} />
            </dd>
            <dt>Mode</dt>
            <dd>{waf.mode}</dd>
            <dt>Rules</dt>
            <dd>{waf.ruleset}</dd>
            <dt>Blocked (24 h)</dt>
            <dd data-testid="waf-blocked">{waf.blockedRequests24h} requests</dd>
            <dt>Log access</dt>
            <dd data-testid="waf-log-access">
              {waf.logAccess.active ? (
                <>
                  Open until <When at={waf.logAccess.expiresAt} />
                </>
              ) : (
                'Closed'
              )}
            </dd>
          </dl>
          <h3>Firewall log</h3>
          <p class="muted small">
            Access to the firewall's request log is opened for 60 minutes at a time; ask again to extend it.
          </p>
          <button type="button" onClick={request} disabled={call.busy} aria-busy={call.busy}>
            {call.busy ? 'Requesting…' : waf.logAccess.active ? 'Extend log access' : 'Request log access'}
          </button>
          <Outcome error={call.refusal?.message} done={done} />
        </>
      )}
    </Section>
  );
}
