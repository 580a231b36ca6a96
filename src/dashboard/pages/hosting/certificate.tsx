import { useState } from 'preact/hooks';
import { gql } from '../../api.ts';
import { StatusBadge, When } from '../../format.tsx';
import { Section, useLive } from '../../live-query.tsx';
import { Outcome, useCall } from './panel-kit.tsx';

interface Certificate {
  status: string;
  domains: string[];
  issuedAt: string | null;
  expiresAt: string | null;
  error: string | null;
}

const CERT_FIELDS = 'status domains issuedAt expiresAt error';

/**
 * Certificate tab: the site's TLS certificate. A retry is offered only after a failed issuance;
 * it checks each name's DNS again.
 */
export function CertificatePanel(props: { id: string }) {
  const [reload, setReload] = useState(0);
  const state = useLive<{ hostingAccount: { certificate: Certificate } }>(
    `query($id: ID!) { hostingAccount(id: $id) { certificate { ${CERT_FIELDS} } } }`,
    ['hosting.'],
    { id: props.id },
    reload,
  );
  const call = useCall();
  const [done, setDone] = useState('');

  const retry = async () => {
    setDone('');
    const r = await call.run(() =>
      gql<{ hostingCertRetry: Certificate }>(`mutation($id: ID!) { hostingCertRetry(id: $id) { ${CERT_FIELDS} } }`, {
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
