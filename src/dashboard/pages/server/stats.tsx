import { useEffect, useState } from 'preact/hooks';
import { When } from '../../format.tsx';
import { LineChart } from './chart.tsx';
import type { Sample } from './shared.tsx';

/** How long Refresh waits for the page's read before it is offered again. */
const REFRESH_GIVE_UP_MS = 10_000;
/** An hour of samples per server. */
const KEEP = 60;

/**
 * The API answers the current sample only (no history, no period), so the page keeps the samples
 * it has read, per server, for as long as the tab is open: leaving the page and coming back keeps
 * the lines.
 */
const kept = new Map<string, Sample[]>();

function keep(serverId: string, sample: Sample): Sample[] {
  const list = kept.get(serverId) ?? [];
  const next = list.some((s) => s.sampledAt === sample.sampledAt)
    ? list.map((s) => (s.sampledAt === sample.sampledAt ? sample : s))
    : [...list, sample].sort((a, b) => a.sampledAt.localeCompare(b.sampledAt)).slice(-KEEP);
  kept.set(serverId, next);
  return next;
}

const percent = (v: number) => `${Math.round(v * 10) / 10} %`;
const megabytes = (v: number) => (v >= 1024 ? `${Math.round(v / 102.4) / 10} GB` : `${Math.round(v)} MB`);
function rate(v: number): string {
  if (v >= 1_000_000) return `${Math.round(v / 100_000) / 10} MB/s`;
  if (v >= 1_000) return `${Math.round(v / 100) / 10} kB/s`;
  return `${Math.round(v)} B/s`;
}

/** CPU, memory, network and disk over the samples the page has read (it reads one with the server). */
export function Stats(props: { serverId: string; sample: Sample; onRefresh(): void }) {
  const [samples, setSamples] = useState<Sample[]>(() => keep(props.serverId, props.sample));
  // Set by Refresh, cleared when the page's next read brings a sample (a new object, even if the same minute's).
  const [refreshing, setRefreshing] = useState(false);
  useEffect(() => {
    setSamples(keep(props.serverId, props.sample));
    setRefreshing(false);
  }, [props.serverId, props.sample]);

  const times = samples.map((s) => s.sampledAt);
  const latest = samples[samples.length - 1];
  return (
    <section class="card" data-testid="stats" aria-busy={refreshing}>
      <div class="section-head">
        <h2>Usage</h2>
        <button
          type="button"
          class="secondary"
          onClick={() => {
            setRefreshing(true);
            props.onRefresh();
            // A failed read brings no sample: the button comes back anyway (the page says why).
            setTimeout(() => setRefreshing(false), REFRESH_GIVE_UP_MS);
          }}
          disabled={refreshing}
        >
          {refreshing ? 'Refreshing…' : 'Refresh'}
        </button>
      </div>
      <p class="small muted">
        One sample a minute, kept while this tab is open.{' '}
        {latest && (
          <>
            Latest: <When at={latest.sampledAt} />
            {latest.status !== 'running' && ` (${latest.status}: no load)`}.
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
            times={times}
            series={[{ name: 'CPU', values: samples.map((s) => s.cpu.percent) }]}
            max={100}
            format={percent}
          />
          <LineChart
            id="memory"
            title={`Memory in use (of ${megabytes(latest.memory.totalMb)})`}
            yTitle="Memory"
            times={times}
            series={[{ name: 'In use', values: samples.map((s) => s.memory.usedMb) }]}
            max={latest.memory.totalMb}
            format={megabytes}
          />
          <LineChart
            id="network"
            title="Network traffic"
            yTitle="Rate"
            times={times}
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
            times={times}
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
