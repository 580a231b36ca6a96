import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

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

  constructor() {
    collectDefaultMetrics({ register: this.registry });
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
