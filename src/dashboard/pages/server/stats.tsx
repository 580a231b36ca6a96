import { useEffect, useState } from 'preact/hooks';
import { gql } from '../../api.ts';
import { When } from '../../format.tsx';
import { LineChart } from './chart.tsx';

interface Sample {
  sampledAt: string;
  status: string;
  cpu: { percent: number };
  memory: { usedMb: number; totalMb: number };
  network: { rxBytesPerSecond: number; txBytesPerSecond: number };
  disk: { usedGb: number; totalGb: number; readBytesPerSecond: number; writeBytesPerSecond: number };
}

const STATS_QUERY = `query($id: ID!) { serverStats(id: $id) {
  sampledAt status cpu { percent } memory { usedMb totalMb }
  network { rxBytesPerSecond txBytesPerSecond }
  disk { usedGb totalGb readBytesPerSecond writeBytesPerSecond }
} }`;

/** The API samples once a minute: reading more often finds the same sample. */
const POLL_MS = 30_000;
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

/** CPU, memory, network and disk over the samples read so far, refreshed every half minute and on demand. */
export function Stats(props: { serverId: string; reloadKey: number }) {
  const [samples, setSamples] = useState<Sample[]>(() => kept.get(props.serverId) ?? []);
  const [error, setError] = useState('');
  const [loading, setLoading] = useState(false);
  const [asked, setAsked] = useState(0);

  useEffect(() => {
    let alive = true;
    const read = () => {
      setLoading(true);
      gql<{ serverStats: Sample }>(STATS_QUERY, { id: props.serverId }).then(
        (d) => {
          if (!alive) return;
          setSamples(keep(props.serverId, d.serverStats));
          setError('');
          setLoading(false);
        },
        (err: Error) => {
          if (!alive) return;
          setError(err.message);
          setLoading(false);
        },
      );
    };
    read();
    const timer = setInterval(read, POLL_MS);
    return () => {
      alive = false;
      clearInterval(timer);
    };
  }, [props.serverId, props.reloadKey, asked]);

  const times = samples.map((s) => s.sampledAt);
  const latest = samples[samples.length - 1];
  return (
    <section class="card" data-testid="stats" aria-busy={loading}>
      <div class="section-head">
        <h2>Usage</h2>
        <button type="button" class="secondary" onClick={() => setAsked((n) => n + 1)} disabled={loading}>
          {loading ? 'Refreshing…' : 'Refresh'}
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
      {error && <p class="error">{error}</p>}
      {!latest ? (
        !error && <p class="muted">Loading…</p>
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
