import { useEffect, useState } from 'preact/hooks';
import { When } from '../../format.tsx';
import { hhmm, LineChart } from './chart.tsx';
import type { Usage, UsagePeriod } from './shared.tsx';

/** How long Refresh waits for the page's read before it is offered again. */
const REFRESH_GIVE_UP_MS = 10_000;

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const WEEKDAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const dayMonth = (d: Date) => `${d.getUTCDate()} ${MONTHS[d.getUTCMonth()]}`;

/** Each period: its choice in the list, the x axis' title and how a point's time reads on it. */
const PERIODS: Record<UsagePeriod, { choice: string; xTitle: string; time(iso: string): string }> = {
  HOUR: { choice: 'Last hour', xTitle: 'Time (UTC), a point a minute', time: hhmm },
  DAY: {
    choice: 'Last 24 hours',
    xTitle: 'Time (UTC), a point per 15 minutes',
    time: (iso) => `${dayMonth(new Date(iso))} ${hhmm(iso)}`,
  },
  WEEK: {
    choice: 'Last 7 days',
    xTitle: 'Day (UTC), a point an hour',
    time: (iso) => `${WEEKDAYS[new Date(iso).getUTCDay()]} ${dayMonth(new Date(iso))}`,
  },
};

const percent = (v: number) => `${Math.round(v * 10) / 10} %`;
const megabytes = (v: number) => (v >= 1024 ? `${Math.round(v / 102.4) / 10} GB` : `${Math.round(v)} MB`);
function rate(v: number): string {
  if (v >= 1_000_000) return `${Math.round(v / 100_000) / 10} MB/s`;
  if (v >= 1_000) return `${Math.round(v / 100) / 10} kB/s`;
  return `${Math.round(v)} B/s`;
}

/** CPU, memory, network and disk over the last hour, day or week (Server.usage, read with the page). */
export function Stats(props: {
  /** The server's status now. */
  status: string;
  usage: Usage;
  /** The period chosen; `usage` is still the previous one's until the page's read brings it. */
  period: UsagePeriod;
  onPeriod(period: UsagePeriod): void;
  onRefresh(): void;
}) {
  const { usage, period } = props;
  // Set by Refresh, cleared when the page's next read brings the usage (a new object, even if the same figures).
  const [refreshing, setRefreshing] = useState(false);
  useEffect(() => setRefreshing(false), [usage]);

  const switching = usage.period !== period;
  const shown = PERIODS[usage.period];
  const samples = usage.samples;
  const times = samples.map((s) => s.sampledAt);
  const latest = samples[samples.length - 1];
  const chart = { xTitle: shown.xTitle, timeLabel: shown.time, times };
  return (
    <section class="card" data-testid="stats" aria-busy={refreshing || switching}>
      <div class="section-head">
        <h2>Usage</h2>
        <button
          type="button"
          class="secondary"
          onClick={() => {
            setRefreshing(true);
            props.onRefresh();
            // A failed read brings nothing: the button comes back anyway (the page says why).
            setTimeout(() => setRefreshing(false), REFRESH_GIVE_UP_MS);
          }}
          disabled={refreshing}
        >
          {refreshing ? 'Refreshing…' : 'Refresh'}
        </button>
      </div>
      <p class="actions">
        <label>
          Period{' '}
          <select value={period} onChange={(e) => props.onPeriod(e.currentTarget.value as UsagePeriod)}>
            {(Object.keys(PERIODS) as UsagePeriod[]).map((p) => (
              <option key={p} value={p}>
                {PERIODS[p].choice}
              </option>
            ))}
          </select>
        </label>
        {switching && (
          <span class="muted" role="status">
            Reading the {PERIODS[period].choice.toLowerCase()}…
          </span>
        )}
      </p>
      <p class="small muted">
        {shown.choice}: each point averages the datacenter's per-minute figures over {stepText(usage.step)}; no load
        while the server is not running.{' '}
        {latest && (
          <>
            Latest: <When at={latest.sampledAt} />
            {props.status !== 'running' && ` (${props.status}: no load)`}.
          </>
        )}
      </p>
      {!latest ? (
        <p class="muted">No sample yet.</p>
      ) : (
        <div class="charts">
          <LineChart
            id="cpu"
            title="CPU load"
            yTitle="Load"
            {...chart}
            series={[{ name: 'CPU', values: samples.map((s) => s.cpu.percent) }]}
            max={100}
            format={percent}
          />
          <LineChart
            id="memory"
            title={`Memory in use (of ${megabytes(latest.memory.totalMb)})`}
            yTitle="Memory"
            {...chart}
            series={[{ name: 'In use', values: samples.map((s) => s.memory.usedMb) }]}
            max={latest.memory.totalMb || undefined}
            format={megabytes}
          />
          <LineChart
            id="network"
            title="Network traffic"
            yTitle="Rate"
            {...chart}
            series={[
              { name: 'Received', values: samples.map((s) => s.network.rxBytesPerSecond) },
              { name: 'Sent', values: samples.map((s) => s.network.txBytesPerSecond) },
            ]}
            format={rate}
          />
          <LineChart
            id="disk"
            title={`Disk throughput (${latest.disk.usedGb} of ${latest.disk.totalGb} GB used)`}
            yTitle="Rate"
            {...chart}
            series={[
              { name: 'Read', values: samples.map((s) => s.disk.readBytesPerSecond) },
              { name: 'Written', values: samples.map((s) => s.disk.writeBytesPerSecond) },
            ]}
            format={rate}
          />
        </div>
      )}
    </section>
  );
}

/** "a minute", "15 minutes", "an hour". */
function stepText(seconds: number): string {
  if (seconds === 60) return 'a minute';
  if (seconds === 3600) return 'an hour';
  return seconds % 3600 === 0 ? `${seconds / 3600} hours` : `${Math.round(seconds / 60)} minutes`;
}
