import type { SlicedRequest } from './lib.ts';
import type { Figure } from './scenarios.ts';

const STAGE_LINE = /^http_stage_duration_seconds_(sum|count)\{stage="(\w+)"\} (\S+)$/gm;

/** The app's per-stage totals (seconds, requests) as /metrics has them now. */
async function stageTotals(url: string, adminToken: string): Promise<Map<string, { sum: number; count: number }>> {
  const text = await (await fetch(`${url}/metrics`, { headers: { Authorization: `Bearer ${adminToken}` } })).text();
  const totals = new Map<string, { sum: number; count: number }>();
  for (const [, part, stage, value] of text.matchAll(STAGE_LINE)) {
    const entry = totals.get(stage) ?? { sum: 0, count: 0 };
    entry[part as 'sum' | 'count'] = Number(value);
    totals.set(stage, entry);
  }
  return totals;
}

/**
 * Where one read's time goes inside the app: `requests` sequential requests, then the mean
 * microseconds each pipeline stage took for them (the difference of `http_stage_duration_seconds`
 * before and after, src/http/api.ts). Sequential, so no request waits on another's stage.
 */
export async function stageTimes(
  url: string,
  adminToken: string,
  scenario: string,
  label: string,
  target: SlicedRequest,
  requests: number,
): Promise<Figure[]> {
  const before = await stageTotals(url, adminToken);
  for (let i = 0; i < requests; i++) {
    const res = await fetch(url + target.path, {
      method: target.method ?? 'GET',
      headers: target.headers,
      body: target.body,
    });
    await res.arrayBuffer();
  }
  const after = await stageTotals(url, adminToken);
  const figures: Figure[] = [];
  let total = 0;
  for (const [stage, now] of after) {
    const was = before.get(stage) ?? { sum: 0, count: 0 };
    const count = now.count - was.count;
    // The /metrics reads themselves pass the stages too: one of them falls in the window.
    if (count < requests) continue;
    const micros = ((now.sum - was.sum) / count) * 1e6;
    total += micros;
    figures.push({ scenario, metric: `${label}: ${stage}`, value: micros, unit: 'µs' });
  }
  figures.push({ scenario, metric: `${label}: all stages`, value: total, unit: 'µs' });
  return figures;
}
