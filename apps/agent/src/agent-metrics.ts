import type { MessageBus, OutgoingMessage } from '@hcn/messaging';
import { registerBuildInfo } from '@hcn/platform';
import { Counter, Gauge, Registry, collectDefaultMetrics } from 'prom-client';

/** What the agent's gauges read at each scrape. */
export interface AgentGauges {
  readonly runningAllocations: readonly string[];
  readonly pendingReports: number;
}

/** The agent's Prometheus metrics (served by its own listener when HCN_METRICS_PORT is set; off by default). */
export class AgentMetrics {
  readonly registry = new Registry();
  private source: AgentGauges | undefined;
  readonly reportsSent = new Counter({
    name: 'hcn_agent_reports_sent_total',
    help: 'Reports (heartbeats, allocation reports, logs) published to the hub',
    registers: [this.registry],
  });
  readonly reportsFailed = new Counter({
    name: 'hcn_agent_reports_failed_total',
    help: 'Reports whose publish failed (they stay in the outbox and are sent again)',
    registers: [this.registry],
  });

  constructor() {
    collectDefaultMetrics({ register: this.registry });
    registerBuildInfo(this.registry, 'agent');
    const current = () => this.source;
    const read = (value: (s: AgentGauges) => number) =>
      function (this: Gauge) {
        const source = current();
        if (source) this.set(value(source));
      };
    new Gauge({
      name: 'hcn_agent_allocations_running',
      help: 'Allocations running on this node',
      registers: [this.registry],
      collect: read((s) => s.runningAllocations.length),
    });
    new Gauge({
      name: 'hcn_agent_outbox_reports',
      help: 'Reports waiting in the durable outbox (grows while the agent is cut off from Kafka)',
      registers: [this.registry],
      collect: read((s) => s.pendingReports),
    });
  }

  /** The agent the gauges read. */
  observe(source: AgentGauges): void {
    this.source = source;
  }

  /** `bus` with its publishes counted as reports sent or failed (the agent publishes nothing but reports). */
  countingPublishes(bus: MessageBus): MessageBus {
    const count = async (messages: number, publish: () => Promise<void>) => {
      try {
        await publish();
        this.reportsSent.inc(messages);
      } catch (error) {
        this.reportsFailed.inc(messages);
        throw error;
      }
    };
    return {
      createTopics: (topics) => bus.createTopics(topics),
      publish: (topic: string, messages: readonly OutgoingMessage[]) =>
        count(messages.length, () => bus.publish(topic, messages)),
      publishAll: (batches) =>
        count(
          batches.reduce((n, b) => n + b.messages.length, 0),
          () => bus.publishAll(batches),
        ),
      consume: (options) => bus.consume(options),
      close: () => bus.close(),
    };
  }
}
