import { useState } from 'preact/hooks';
import { gql } from '../../api.ts';
import { StatusBadge, When } from '../../format.tsx';
import { Section, useLive } from '../../live-query.tsx';
import { Outcome, useCall } from './panel-kit.tsx';
import { graphql } from '../../graphql.ts';

const CERTIFICATE = graphql('fragment Certificate on HostingCertificate { status domains issuedAt expiresAt error }');
const CERT_QUERY = graphql('query($id: ID!) { hostingAccount(id: $id) { certificate { ...Certificate } } }', [
  CERTIFICATE,
]);
const CERT_RETRY = graphql('mutation($id: ID!) { hostingCertRetry(id: $id) { ...Certificate } }', [CERTIFICATE]);

/**
 * Certificate tab: the site's TLS certificate. A retry is offered only after a failed issuance;
 * it checks each name's DNS again.
 */
export function CertificatePanel(props: { id: string }) {
  const [reload, setReload] = useState(0);
  const state = useLive(CERT_QUERY, ['hosting.'], { id: props.id }, reload);
  const call = useCall();
  const [done, setDone] = useState('');

  const retry = async () => {
    setDone('');
    const r = await call.run(() =>
      gql(CERT_RETRY, {
        id: props.id,
      }),
    );
    if (r) setDone(r.hostingCertRetry.status === 'issued' ? 'Certificate issued.' : 'The retry failed again.');
    setReload((n) => n + 1);
  };

  return (
    <Section title="Certificate" testid="hosting-certificate" state={state}>
      {({ hostingAccount: { certificate: cert } }) => (
        <div aria-busy={call.busy}>
          <dl class="facts">
            <dt>Status</dt>
            <dd data-testid="cert-status">
              <StatusBadge status={cert.status} />
            </dd>
            <dt>Covers</dt>
            <dd class="mono">{cert.domains.join(', ') || '—'}</dd>
            <dt>Issued</dt>
            <dd>
              <When at={cert.issuedAt} none="not yet" />
            </dd>
            <dt>Expires</dt>
            <dd>
              <When at={cert.expiresAt} />
            </dd>
          </dl>
          {cert.error && (
            <p class="error" data-testid="cert-error">
              {cert.error}
            </p>
          )}
          {cert.status === 'failed' && (
            <div class="actions">
              <button type="button" onClick={retry} disabled={call.busy}>
                {call.busy ? 'Retrying…' : 'Retry issuance'}
              </button>
            </div>
          )}
          <Outcome error={call.refusal?.message} done={done} />
        </div>
      )}
    </Section>
  );
}
