import { createHash } from 'node:crypto';
import type { ServerStats, UsageRange } from './types.ts';

// The simulated datacenter's usage figures: one deterministic function gives a minute's figures
// (the live sample and every past minute of a range), and the upstream log tells when the
// server was running.

/** Simulated seconds a reboot (and so a plan change) keeps a server down. */
export const REBOOT_SECONDS = 60;
/** Simulated seconds a snapshot revert keeps a server down. */
export const RESTORE_SECONDS = 60;

const MINUTE_MS = 60_000;

/** What the figures of a server depend on besides the minute. */
export interface UsageSubject {
  serverId: string;
  ramMb: number;
  diskGb: number;
  os: string;
  provisionedAt: Date | null;
}

/**
 * The figures of one minute, sampled at `at` (within that minute): load while `running`, none
 * otherwise. They vary from minute to minute but are the same for every read within a minute.
 */
export function minuteFigures(s: UsageSubject, at: Date, running: boolean): ServerStats {
  const minute = Math.floor(at.getTime() / MINUTE_MS);
  const r = (salt: string) =>
    createHash('sha256').update(`${s.serverId}:${minute}:${salt}`).digest().readUInt32BE(0) / 2 ** 32;
  const uptime = s.provisionedAt ? Math.max(0, (at.getTime() - s.provisionedAt.getTime()) / 1000) : 0;
  const base = s.os === 'windows' ? 14 : 3;
  const diskUsedGb = Math.min(s.diskGb, Math.round((base + Math.min(s.diskGb * 0.4, uptime / 86400)) * 10) / 10);
  return {
    sampledAt: new Date(minute * MINUTE_MS),
    cpuPercent: running ? Math.round((2 + r('cpu') * 55) * 10) / 10 : 0,
    memoryUsedMb: running ? Math.round(s.ramMb * (0.25 + r('mem') * 0.5)) : 0,
    memoryTotalMb: s.ramMb,
    networkRxBytesPerSecond: running ? Math.round(20_000 + r('rx') * 2_000_000) : 0,
    networkTxBytesPerSecond: running ? Math.round(10_000 + r('tx') * 1_000_000) : 0,
    networkRxBytesTotal: Math.round(uptime * 400_000),
    networkTxBytesTotal: Math.round(uptime * 200_000),
    diskUsedGb,
    diskTotalGb: s.diskGb,
    diskReadBytesPerSecond: running ? Math.round(r('dr') * 5_000_000) : 0,
    diskWriteBytesPerSecond: running ? Math.round(r('dw') * 3_000_000) : 0,
  };
}

/** A minute before the server existed upstream: nothing at all. */
function nothing(minute: number): ServerStats {
  return {
    sampledAt: new Date(minute * MINUTE_MS),
    cpuPercent: 0,
    memoryUsedMb: 0,
    memoryTotalMb: 0,
    networkRxBytesPerSecond: 0,
    networkTxBytesPerSecond: 0,
    networkRxBytesTotal: 0,
    networkTxBytesTotal: 0,
    diskUsedGb: 0,
    diskTotalGb: 0,
    diskReadBytesPerSecond: 0,
    diskWriteBytesPerSecond: 0,
  };
}

/** From `at` on, the server runs (or not), until the next change. */
interface PowerChange {
  at: number;
  running: boolean;
}

/**
 * When the server ran, replayed from its upstream log (the lines this driver writes, in order):
 * up once its image is written, on a start and at the end of a reboot, plan change, restore or
 * rebuild; down on a stop, a suspension, a destruction and during those transitions. A
 * transition's end is its simulated duration after it began, unless a later line (a suspension)
 * came first, as the settle callback only moves a server still in transition.
 */
export function powerTimeline(log: { at: Date; line: string }[]): PowerChange[] {
  const changes: PowerChange[] = [];
  // `pending`: a transition under way; the server comes back (or stays down) at `until`.
  const state: { running: boolean; pending: { until: number; resume: boolean } | null } = {
    running: false,
    pending: null,
  };
  const set = (at: number, running: boolean) => {
    state.running = running;
    state.pending = null;
    changes.push({ at, running });
  };
  const transition = (at: number, seconds: number, resume: boolean) => {
    set(at, false);
    state.pending = { until: at + seconds * 1000, resume };
  };
  for (const { at: when, line } of log) {
    const at = when.getTime();
    if (state.pending && state.pending.until <= at) set(state.pending.until, state.pending.resume);
    const resting = state.pending ? state.pending.resume : state.running;
    if (line.startsWith('image written') || line === 'power start' || line === 'rebuild finished') set(at, true);
    else if (line === 'power stop' || line.startsWith('suspended') || line.startsWith('destroyed')) set(at, false);
    else if (line === 'power reboot') transition(at, REBOOT_SECONDS, true);
    else if (line.startsWith('resize to') && resting) transition(at, REBOOT_SECONDS, true);
    else if (line.startsWith('disk rolled back')) transition(at, RESTORE_SECONDS, resting);
    else if (line.startsWith('disk wiped')) transition(at, Number.POSITIVE_INFINITY, true);
  }
  if (state.pending && Number.isFinite(state.pending.until))
    changes.push({ at: state.pending.until, running: state.pending.resume });
  return changes;
}

/** Whether the timeline has the server running at `at` (changes in time order). */
function runningAt(changes: PowerChange[], at: number, from: { index: number }): boolean {
  while (from.index < changes.length && changes[from.index].at <= at) from.index++;
  return from.index > 0 && changes[from.index - 1].running;
}

/** Figures per second, averaged over a step. */
const AVERAGED = [
  'cpuPercent',
  'memoryUsedMb',
  'networkRxBytesPerSecond',
  'networkTxBytesPerSecond',
  'diskReadBytesPerSecond',
  'diskWriteBytesPerSecond',
] as const;

/**
 * The samples of `range`: each minute of a step has its figures (sampled at the minute's end, or
 * now for the current minute, which runs as `runningNow` says, as the live sample does), and a
 * step averages them (steps of an hour or more, a sample of their minutes). Work is one round
 * of hashes per minute read.
 */
export function usageSamples(
  s: UsageSubject,
  changes: PowerChange[],
  range: UsageRange,
  now: Date,
  runningNow: boolean,
): ServerStats[] {
  const nowMinute = Math.floor(now.getTime() / MINUTE_MS);
  const stepMinutes = Math.max(1, Math.round(range.stepSeconds / 60));
  const firstMinute = Math.floor(range.from.getTime() / MINUTE_MS);
  // An hour's step reads every 5th minute (and its last): a week is then 2,016 minutes, not 10,080.
  const stride = stepMinutes >= 60 ? 5 : 1;
  const cursor = { index: 0 };
  const samples: ServerStats[] = [];
  for (let p = 0; p < range.points; p++) {
    const start = firstMinute + p * stepMinutes;
    const minutes: ServerStats[] = [];
    const end = Math.min(start + stepMinutes, nowMinute + 1);
    const next = (m: number) => (m === end - 1 ? end : Math.min(m + stride, end - 1));
    for (let m = start; m < end; m = next(m)) {
      const at = m === nowMinute ? now.getTime() : (m + 1) * MINUTE_MS - 1;
      if (!s.provisionedAt || at < s.provisionedAt.getTime()) minutes.push(nothing(m));
      else minutes.push(minuteFigures(s, new Date(at), m === nowMinute ? runningNow : runningAt(changes, at, cursor)));
    }
    if (minutes.length === 0) {
      samples.push(nothing(start));
      continue;
    }
    const last = minutes[minutes.length - 1];
    const step: ServerStats = { ...last, sampledAt: new Date(start * MINUTE_MS) };
    for (const key of AVERAGED) step[key] = minutes.reduce((sum, f) => sum + f[key], 0) / minutes.length;
    step.cpuPercent = Math.round(step.cpuPercent * 10) / 10;
    for (const key of AVERAGED) if (key !== 'cpuPercent') step[key] = Math.round(step[key]);
    step.diskUsedGb = Math.round((minutes.reduce((sum, f) => sum + f.diskUsedGb, 0) / minutes.length) * 10) / 10;
    samples.push(step);
  }
  return samples;
}
