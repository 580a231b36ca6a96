import { useState } from 'preact/hooks';
import { formatUtc, When } from '../../format.tsx';
import { Section, useLive } from '../../live-query.tsx';
import { bytes } from './panel-kit.tsx';
import { graphql, type ResultOf } from '../../graphql.ts';

const STATS_QUERY = graphql(`query($id: ID!, $period: String!) {
  hostingStats(id: $id) { sampledAt disk { usedBytes quotaBytes } inodes { used quota }
    bandwidth { usedBytes quotaBytes } databases { used quota } mailboxes { used quota } }
  hostingVisitorStats(id: $id, period: $period) { visits uniqueVisitors pageViews bandwidthBytes
    series { start visits pageViews } topPages { path views } }
}`);
type Visitors = ResultOf<typeof STATS_QUERY>['hostingVisitorStats'];

const PERIODS = [
  ['24h', 'Last 24 hours'],
  ['7d', 'Last 7 days'],
  ['30d', 'Last 30 days'],
] as const;

/** One quota as a bar: the share used, with the figures beside it as text. */
function UsageBar(props: { label: string; used: number; quota: number; show(n: number): string }) {
  const share = props.quota > 0 ? Math.min(1, props.used / props.quota) : 0;
  const text = `${props.show(props.used)} of ${props.show(props.quota)}`;
  return (
    <div class="quota" data-testid={`usage-${props.label.toLowerCase()}`}>
      <span>{props.label}</span>
      <svg viewBox="0 0 100 8" preserveAspectRatio="none" role="img" aria-label={`${props.label}: ${text}`}>
        <rect class="quota-track" width="100" height="8" rx="2" />
        <rect class="quota-used" width={Math.max(share * 100, share > 0 ? 1 : 0)} height="8" rx="2" />
      </svg>
      <span class="small muted">{text}</span>
    </div>
  );
}

/** Page views of each hour or day as bars; each bar's title gives its figures. */
function SeriesChart(props: { series: Visitors['series']; hourly: boolean }) {
  const max = Math.max(1, ...props.series.map((p) => p.pageViews));
  const slot = 10;
  const label = `Page views per ${props.hourly ? 'hour' : 'day'}: ${props.series.length} bars, the highest ${max}.`;
  return (
    <svg
      class="series"
      viewBox={`0 0 ${props.series.length * slot} 100`}
      preserveAspectRatio="none"
      role="img"
      aria-label={label}
      data-testid="visitor-series"
    >
      {props.series.map((p, i) => {
        const h = (p.pageViews / max) * 100;
        return (
          <rect key={p.start} class="series-bar" x={i * slot + 1} y={100 - h} width={slot - 2} height={h}>
            <title>
              {props.hourly ? formatUtc(p.start) : formatUtc(p.start).slice(0, 10)}: {p.pageViews} page views,{' '}
              {p.visits} visits
            </title>
          </rect>
        );
      })}
    </svg>
  );
}

/** Statistics tab: the plan's quotas in use, and the site's visitors over a period. */
export function StatsPanel(props: { id: string }) {
  const [period, setPeriod] = useState<string>('24h');
  const state = useLive(STATS_QUERY, ['hosting.'], {
    id: props.id,
    period,
  });
  const count = (n: number) => n.toLocaleString('en-US');
  return (
    <Section title="Statistics" testid="hosting-stats" state={state}>
      {({ hostingStats: s, hostingVisitorStats: v }) => (
        <>
          <h3>Usage</h3>
          <p class="muted small">
            Sampled <When at={s.sampledAt} />; bandwidth counts this calendar month.
          </p>
          <UsageBar label="Disk" used={s.disk.usedBytes} quota={s.disk.quotaBytes} show={bytes} />
          <UsageBar label="Bandwidth" used={s.bandwidth.usedBytes} quota={s.bandwidth.quotaBytes} show={bytes} />
          <UsageBar label="Files" used={s.inodes.used} quota={s.inodes.quota} show={count} />
          <UsageBar label="Databases" used={s.databases.used} quota={s.databases.quota} show={count} />
          <UsageBar label="Mailboxes" used={s.mailboxes.used} quota={s.mailboxes.quota} show={count} />
          <h3>Visitors</h3>
          <div class="log-kind">
            <label for="stats-period">Period</label>
            <select id="stats-period" value={period} onChange={(e) => setPeriod(e.currentTarget.value)}>
              {PERIODS.map(([value, label]) => (
                <option key={value} value={value}>
                  {label}
                </option>
              ))}
            </select>
          </div>
          <dl class="facts" data-testid="visitor-totals">
            <dt>Visits</dt>
            <dd>{count(v.visits)}</dd>
            <dt>Visitors</dt>
            <dd>{count(v.uniqueVisitors)}</dd>
            <dt>Page views</dt>
            <dd>{count(v.pageViews)}</dd>
            <dt>Served</dt>
            <dd>{bytes(v.bandwidthBytes)}</dd>
          </dl>
          <SeriesChart series={v.series} hourly={period === '24h'} />
          {v.topPages.length === 0 ? (
            <p class="muted">No page views in this period.</p>
          ) : (
            <div class="table-wrap">
              <table>
                <caption class="visually-hidden">Most viewed pages</caption>
                <thead>
                  <tr>
                    <th scope="col">Page</th>
                    <th scope="col" class="num">
                      Views
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {v.topPages.map((p) => (
                    <tr key={p.path}>
                      <td class="mono">{p.path}</td>
                      <td class="num">{count(p.views)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
        </>
      )}
    </Section>
  );
}
