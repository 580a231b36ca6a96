import { formatUtc } from '../../format.tsx';

/** One line of a chart: its name (legend, table header) and one value per sample. */
interface Series {
  name: string;
  values: number[];
}

const W = 400;
const H = 170;
const PAD = { left: 74, right: 10, top: 10, bottom: 34 };
/** The classes that colour the first and second line (style.css: .chart .line-0, .line-1). */
const LINE_CLASSES = ['line-0', 'line-1'];

/** A point's time as an axis shows it, by default the hour and minute (UTC). */
export const hhmm = (iso: string) => formatUtc(iso).slice(11, 16);

/**
 * A line chart as inline SVG: a y axis from 0 to `max` (or the largest value), the sample times
 * along x, one line per series. For assistive tech it is one image whose label sums it up, and
 * the values are in a table under a <details>.
 */
export function LineChart(props: {
  id: string;
  title: string;
  /** The y axis' title, with its unit ("Load (%)"). */
  yTitle: string;
  /** The x axis' title, with its unit ("Time (UTC), a point a minute"). */
  xTitle: string;
  /** A point's time as the x axis and the summary show it. */
  timeLabel?(iso: string): string;
  times: string[];
  series: Series[];
  /** The top of the y axis; the largest value (rounded up) when absent. */
  max?: number;
  /** A value as text, with its unit. */
  format(v: number): string;
}) {
  const { times, series } = props;
  const largest = Math.max(0, ...series.flatMap((s) => s.values));
  const max = props.max ?? niceCeiling(largest);
  const plotW = W - PAD.left - PAD.right;
  const plotH = H - PAD.top - PAD.bottom;
  const x = (i: number) => PAD.left + (times.length <= 1 ? plotW / 2 : (i / (times.length - 1)) * plotW);
  const y = (v: number) => PAD.top + plotH - (max > 0 ? (Math.min(v, max) / max) * plotH : 0);
  const label = props.timeLabel ?? hhmm;
  const summary = chartSummary(props.title, times, series, props.format, label);
  // The first, middle and last times along x.
  const ticks = [...new Set([0, Math.floor((times.length - 1) / 2), times.length - 1])].filter((i) => i >= 0);
  const anchor = (i: number) =>
    times.length === 1 ? 'middle' : i === 0 ? 'start' : i === times.length - 1 ? 'end' : 'middle';
  // Many points: smaller dots, so the line stays readable.
  const radius = times.length > 60 ? 1.5 : 2.5;
  return (
    <figure class="chart" data-testid={`chart-${props.id}`}>
      <figcaption>{props.title}</figcaption>
      <svg viewBox={`0 0 ${W} ${H}`} role="img" aria-label={summary}>
        {[0, 0.5, 1].map((f) => (
          <g key={f}>
            <line class="grid" x1={PAD.left} x2={W - PAD.right} y1={y(max * f)} y2={y(max * f)} />
            <text class="tick" x={PAD.left - 4} y={y(max * f) + 3} text-anchor="end">
              {props.format(max * f)}
            </text>
          </g>
        ))}
        <line class="axis" x1={PAD.left} x2={PAD.left} y1={PAD.top} y2={PAD.top + plotH} />
        <line class="axis" x1={PAD.left} x2={W - PAD.right} y1={PAD.top + plotH} y2={PAD.top + plotH} />
        {ticks.map((i) => (
          <text key={i} class="tick" x={x(i)} y={H - PAD.bottom + 13} text-anchor={anchor(i)}>
            {label(times[i])}
          </text>
        ))}
        <text class="axis-title" x={PAD.left + plotW / 2} y={H - 4} text-anchor="middle">
          {props.xTitle}
        </text>
        <text class="axis-title" transform={`translate(12 ${PAD.top + plotH / 2}) rotate(-90)`} text-anchor="middle">
          {props.yTitle}
        </text>
        {series.map((s, n) => (
          <g key={s.name} class={LINE_CLASSES[n % LINE_CLASSES.length]} data-series={s.name}>
            {s.values.length > 1 && <polyline points={s.values.map((v, i) => `${x(i)},${y(v)}`).join(' ')} />}
            {s.values.map((v, i) => (
              <circle key={times[i]} class="point" cx={x(i)} cy={y(v)} r={radius} />
            ))}
          </g>
        ))}
      </svg>
      {series.length > 1 && (
        <p class="legend small">
          {series.map((s, n) => (
            <span key={s.name} class={LINE_CLASSES[n % LINE_CLASSES.length]}>
              {s.name}
            </span>
          ))}
        </p>
      )}
      <details>
        <summary>Values</summary>
        <div class="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">Time (UTC)</th>
                {series.map((s) => (
                  <th key={s.name} scope="col" class="num">
                    {s.name}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {times.map((t, i) => (
                <tr key={t}>
                  <td>{formatUtc(t)}</td>
                  {series.map((s) => (
                    <td key={s.name} class="num">
                      {props.format(s.values[i])}
                    </td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </details>
    </figure>
  );
}

/** "CPU load, 3 samples from 10:01 to 10:03 UTC: latest 12 %, lowest 3 %, highest 40 %." */
function chartSummary(
  title: string,
  times: string[],
  series: Series[],
  format: (v: number) => string,
  label: (iso: string) => string,
) {
  if (times.length === 0) return `${title}: no samples yet.`;
  const span =
    times.length === 1
      ? `1 sample at ${label(times[0])} UTC`
      : `${times.length} samples from ${label(times[0])} to ${label(times[times.length - 1])} UTC`;
  const parts = series.map((s) => {
    const label = series.length > 1 ? `${s.name} ` : '';
    const last = s.values[s.values.length - 1];
    return `${label}latest ${format(last)}, lowest ${format(Math.min(...s.values))}, highest ${format(Math.max(...s.values))}`;
  });
  return `${title}, ${span}: ${parts.join('; ')}.`;
}

/** A round top for the y axis: 1, 2 or 5 times a power of ten, at least the value. */
function niceCeiling(v: number): number {
  if (v <= 0) return 1;
  const p = 10 ** Math.floor(Math.log10(v));
  for (const m of [1, 2, 5, 10]) if (v <= m * p) return m * p;
  return 10 * p;
}
