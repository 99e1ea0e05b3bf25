import type { RecordedHcnEvent } from '@hcn/contracts';
import type { SubscriptionHealth } from '@hcn/eventstore';
import { registerBuildInfo, registerSubscriptionMetrics } from '@hcn/platform';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { RunnerOptions } from './projection-runner';

/** The projector's Prometheus metrics (served by its own listener when HCN_METRICS_PORT is set). */
export class ProjectorMetrics {
  readonly registry = new Registry();
  readonly eventsApplied = new Counter({
    name: 'hcn_projector_events_applied_total',
    help: 'Events applied to the read models, by projection',
    labelNames: ['projection'],
    registers: [this.registry],
  });
  readonly batchSeconds = new Histogram({
    name: 'hcn_projector_batch_seconds',
    help: "Time to write one projection's batch and checkpoint in one transaction, by projection",
    labelNames: ['projection'],
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [this.registry],
  });
  readonly lagSeconds = new Gauge({
    name: 'hcn_projector_lag_seconds',
    help: 'From the newest applied event being recorded to its projection being committed, by projection',
    labelNames: ['projection'],
    registers: [this.registry],
  });
  readonly lastAppliedSeconds = new Gauge({
    name: 'hcn_projector_last_applied_timestamp_seconds',
    help: 'When each projection last committed events (Unix seconds): a stalled projection stops moving',
    labelNames: ['projection'],
    registers: [this.registry],
  });

  constructor(
    health: SubscriptionHealth,
    private readonly clock: () => number = Date.now,
  ) {
    collectDefaultMetrics({ register: this.registry });
    registerBuildInfo(this.registry, 'projector');
    registerSubscriptionMetrics(this.registry, health);
  }

  /** The runner hook that feeds these metrics (RunnerOptions.onApplied). */
  readonly onApplied: NonNullable<RunnerOptions['onApplied']> = (
    projection: string,
    events: readonly RecordedHcnEvent[],
    seconds: number,
  ) => {
    this.batchSeconds.observe({ projection }, seconds);
    const newest = events.at(-1);
    if (!newest) return;
    const now = this.clock();
    this.eventsApplied.inc({ projection }, events.length);
    this.lastAppliedSeconds.set({ projection }, now / 1000);
    const recorded = Date.parse(newest.recordedAt);
    if (Number.isFinite(recorded)) this.lagSeconds.set({ projection }, Math.max(0, (now - recorded) / 1000));
  };
}
