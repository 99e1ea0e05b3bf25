import type { SubscriptionHealth, SubscriptionStatus } from '@hcn/eventstore';
import { Gauge, Registry } from 'prom-client';

/** Registers one gauge per figure of the supervised subscriptions, read from `health` at each scrape. */
export function registerSubscriptionMetrics(registry: Registry, health: SubscriptionHealth): void {
  const gauge = (name: string, help: string, value: (s: SubscriptionStatus) => number) =>
    new Gauge({
      name,
      help,
      labelNames: ['subscription'],
      registers: [registry],
      collect() {
        this.reset();
        for (const s of health.statuses()) this.set({ subscription: s.name }, value(s));
      },
    });
  gauge('hcn_subscription_failing', '1 while the subscription retries a failed handler', (s) =>
    s.state === 'retrying' ? 1 : 0,
  );
  gauge('hcn_subscription_failures', 'Handler failures in a row', (s) => s.failures);
  gauge(
    'hcn_subscription_lag_seconds',
    "From the last handled event's append to its handling",
    (s) => s.lagMs / 1000,
  );
  gauge(
    'hcn_subscription_parked_events',
    'Events set aside because their data is invalid',
    (s) => s.parkedCount,
  );
}
