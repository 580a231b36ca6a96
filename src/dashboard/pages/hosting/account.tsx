import { StatusBadge, When } from '../../format.tsx';
import { useLive } from '../../live-query.tsx';
import { Link, BackLink } from '../../router.tsx';
import { HOSTING_TABS } from './tabs.tsx';
import { graphql } from '../../graphql.ts';

const ACCOUNT_QUERY = graphql(`query($id: ID!) { hostingAccount(id: $id) {
  id domain status productId ip phpVersion createdAt certificate { status expiresAt } customDomain { domain status }
} }`);

/** /hosting/:id[/:tab]: a hosting account's facts and its control panel, one tab at a time. */
export function HostingAccountPage(props: { id: string; tab?: string }) {
  const state = useLive(ACCOUNT_QUERY, ['hosting.'], { id: props.id });
  if (state.error)
    return (
      <section class="card">
        <h1>Web hosting</h1>
        <p class="error">{state.error}</p>
      </section>
    );
  const h = state.data?.hostingAccount;
  if (!h) return <p class="muted">Loading…</p>;
  const tab = HOSTING_TABS.find((t) => t.slug === props.tab) ?? HOSTING_TABS[0];
  return (
    <div>
      <BackLink href="/hosting" label="Web hosting" />
      <h1>
        {h.domain}{' '}
        <span data-testid="hosting-status">
          <StatusBadge status={h.status} />
        </span>
      </h1>
      <section class="card">
        <dl class="facts">
          <dt>Id</dt>
          <dd class="mono">{h.id}</dd>
          <dt>Plan</dt>
          <dd class="mono">{h.productId}</dd>
          <dt>Address</dt>
          <dd class="mono">{h.ip}</dd>
          <dt>PHP</dt>
          <dd>{h.phpVersion}</dd>
          <dt>Certificate</dt>
          <dd>
            <StatusBadge status={h.certificate.status} />{' '}
            {h.certificate.expiresAt && (
              <span class="small muted">
                expires <When at={h.certificate.expiresAt} />
              </span>
            )}
          </dd>
          <dt>Custom domain</dt>
          <dd>{h.customDomain ? `${h.customDomain.domain} (${h.customDomain.status})` : '—'}</dd>
          <dt>Created</dt>
          <dd>
            <When at={h.createdAt} />
          </dd>
        </dl>
      </section>
      {tab && (
        <>
          <nav class="tabs" aria-label="Control panel">
            {HOSTING_TABS.map((t) => (
              <Link
                key={t.slug}
                href={`/hosting/${h.id}/${t.slug}`}
                class={t === tab ? 'active' : ''}
                current={t === tab}
              >
                {t.label}
              </Link>
            ))}
          </nav>
          <tab.Panel id={h.id} />
        </>
      )}
    </div>
  );
}
