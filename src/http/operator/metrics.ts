import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { Criticality, ShedReason } from '../admission/overload.ts';

/** Prometheus metrics of one app instance (its own registry, so several apps can share a process in tests). */
export class Metrics {
  readonly registry = new Registry();
  private readonly requests = new Counter({
    name: 'http_requests_total',
    help: 'HTTP requests by operation, method and status.',
    labelNames: ['operation', 'method', 'status'] as const,
    registers: [this.registry],
  });
  private readonly duration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP request latency by operation.',
    labelNames: ['operation', 'method', 'status'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [this.registry],
  });

  private readonly stages = new Histogram({
    name: 'http_stage_duration_seconds',
    help: 'Time a request spends in each stage of the request pipeline (src/http/api.ts).',
    labelNames: ['stage'] as const,
    buckets: [0.00001, 0.000025, 0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.01, 0.1, 1],
    registers: [this.registry],
  });

  private readonly shedRequests = new Counter({
    name: 'http_shed_total',
    help: 'Requests refused by the overload limiters (src/http/admission/overload.ts), by reason and criticality.',
    labelNames: ['reason', 'criticality'] as const,
    registers: [this.registry],
  });

  private readonly queueWait = new Histogram({
    name: 'http_queue_wait_seconds',
    help: 'Time a request waited for a slot of the instance, whether it got one or was refused.',
    buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1],
    registers: [this.registry],
  });

  constructor() {
    collectDefaultMetrics({ register: this.registry });
  }

  /** The instance's load as /metrics reads it when scraped: requests in flight and queued, event-loop delay. */
  watchLoad(state: () => { inFlight: number; queued: number; eventLoopDelayMs: number }): void {
    const gauge = (name: string, help: string, read: (s: ReturnType<typeof state>) => number) =>
      new Gauge({
        name,
        help,
        registers: [this.registry],
        collect() {
          this.set(read(state()));
        },
      });
    gauge('http_requests_in_flight', 'Requests holding a slot of the instance now.', (s) => s.inFlight);
    gauge('http_requests_queued', 'Requests waiting for a slot of the instance now.', (s) => s.queued);
    gauge(
      'http_event_loop_delay_p99_seconds',
      'p99 event-loop delay over the last second.',
      (s) => s.eventLoopDelayMs / 1000,
    );
  }

  shed(reason: ShedReason, criticality: Criticality): void {
    this.shedRequests.inc({ reason, criticality });
  }

  waited(seconds: number): void {
    this.queueWait.observe(seconds);
  }

  observe(operation: string, method: string, status: number, seconds: number): void {
    const labels = { operation, method, status: String(status) };
    this.requests.inc(labels);
    this.duration.observe(labels, seconds);
  }

  /** One request's time in each stage, in microseconds. */
  observeStages(timings: readonly [string, number][]): void {
    for (const [stage, microseconds] of timings) this.stages.observe({ stage }, microseconds / 1e6);
  }
}
