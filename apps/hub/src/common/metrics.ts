import { SubscriptionHealth } from '@hcn/eventstore';
import { registerBuildInfo, registerSubscriptionMetrics } from '@hcn/platform';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/** The hub's Prometheus metrics (one registry per hub instance). */
export class HubMetrics {
  readonly registry = new Registry();
  /** The hub's supervised subscriptions (readiness reads them too). */
  readonly subscriptions: SubscriptionHealth;
  readonly reportsReceived = new Counter({
    name: 'hcn_agent_reports_received_total',
    help: 'Agent reports consumed',
    registers: [this.registry],
  });
  readonly reportsRejected = new Counter({
    name: 'hcn_agent_reports_rejected_total',
    help: 'Agent reports rejected without appending, by reason',
    labelNames: ['reason'],
    registers: [this.registry],
  });
  readonly heartbeatsAppended = new Counter({
    name: 'hcn_heartbeats_appended_total',
    help: 'NodeHeartbeatRecorded events appended',
    registers: [this.registry],
  });
  readonly nodesWentOffline = new Counter({
    name: 'hcn_nodes_went_offline_total',
    help: 'NodeWentOffline events appended by this hub',
    registers: [this.registry],
  });
  readonly commandsDispatched = new Counter({
    name: 'hcn_agent_commands_dispatched_total',
    help: 'Commands relayed to agents',
    registers: [this.registry],
  });
  readonly nodesTracked = new Gauge({
    name: 'hcn_liveness_nodes',
    help: 'Nodes tracked by liveness, by status',
    labelNames: ['status'],
    registers: [this.registry],
  });
  readonly ingestLagSeconds = new Gauge({
    name: 'hcn_report_ingest_lag_seconds',
    help: 'How far behind the agents report ingestion is (median over the last batch)',
    registers: [this.registry],
  });
  readonly ingestBatchSeconds = new Histogram({
    name: 'hcn_report_batch_seconds',
    help: 'Time to append one consumed batch of reports',
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [this.registry],
  });

  readonly schedulingSeconds = new Histogram({
    name: 'hcn_scheduling_decision_seconds',
    help: 'Time of one pure scheduling decision',
    buckets: [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.05],
    registers: [this.registry],
  });
  readonly reservationsRefused = new Counter({
    name: 'hcn_reservations_refused_total',
    help: 'Capacity reservations the node decider refused (stale scheduling state), by reason',
    labelNames: ['reason'],
    registers: [this.registry],
  });
  readonly allocationsPlaced = new Counter({
    name: 'hcn_allocations_placed_total',
    help: 'AllocationPlaced events appended by this hub',
    registers: [this.registry],
  });
  readonly submissionStageSeconds = new Histogram({
    name: 'hcn_submission_stage_seconds',
    help: 'Time of each stage of a submission: quota hold, decisions and reservations, the append, and the whole',
    labelNames: ['stage'],
    buckets: [0.001, 0.0025, 0.005, 0.0075, 0.01, 0.015, 0.02, 0.03, 0.05, 0.075, 0.1, 0.25, 0.5, 1],
    registers: [this.registry],
  });
  readonly workloadsSubmitted = new Counter({
    name: 'hcn_workloads_submitted_total',
    help: 'Workloads admitted by this hub',
    registers: [this.registry],
  });
  readonly batchSubmissions = new Histogram({
    name: 'hcn_workload_batch_seconds',
    help: 'Time of each batch submission (POST /v1/workloads/batch) that created workloads, by outcome',
    labelNames: ['outcome'],
    buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [this.registry],
  });

  readonly httpRequests = new Counter({
    name: 'hcn_http_requests_total',
    help: 'HTTP requests answered, by method, route template and status class (2xx, 4xx, ...)',
    labelNames: ['method', 'route', 'status_class'],
    registers: [this.registry],
  });
  readonly httpErrors = new Counter({
    name: 'hcn_http_request_errors_total',
    help: 'HTTP requests that failed, by method, route template and kind (client: 4xx, server: 5xx, aborted)',
    labelNames: ['method', 'route', 'kind'],
    registers: [this.registry],
  });
  readonly httpDuration = new Histogram({
    name: 'hcn_http_request_duration_seconds',
    help: 'Time from a request arriving to its response being sent, by method and route template',
    labelNames: ['method', 'route'],
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [this.registry],
  });

  constructor(subscriptions = new SubscriptionHealth()) {
    this.subscriptions = subscriptions;
    collectDefaultMetrics({ register: this.registry });
    registerBuildInfo(this.registry, 'hub');
    registerSubscriptionMetrics(this.registry, this.subscriptions);
  }
}
