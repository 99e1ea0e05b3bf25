import 'reflect-metadata';
import type { EventStore, SubscriptionHealth } from '@hcn/eventstore';
import type { MessageBus } from '@hcn/messaging';
import { Logger, createLogger } from '@hcn/platform';
import { Logger as NestLogger } from '@nestjs/common';
import { INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import type { DataSource } from 'typeorm';
import { AgentCredentials } from './auth/agent-credentials';
import { HotStreams } from './common/hot-streams';
import { RequireBodyInterceptor } from './common/require-body.interceptor';
import { AnswerSchemaCheck } from './common/answer-check';
import { HubRootModule, useHubLogger } from './common/logging.module';
import { httpTracing, requestLogging } from './common/request-logging';
import { requestIds } from './common/request-scope';
import { traceCommands } from './common/traced-commands';
import { HcnExceptionFilter } from './common/hcn-exception.filter';
import { httpMetrics } from './common/http-metrics';
import { apiAnswersNotCached } from './common/http-conventions';
import { HubMetrics } from './common/metrics';
import type { HubConfig } from './config';
import { CommandSigner } from './dispatch/command-signer';
import { Dispatcher } from './dispatch/dispatcher';
import { registerProjectionLag } from './health/projection-lag.metric';
import { HubModule } from './hub.module';
import { OpsListener, openApiDocument, serveDocs, startOpsListener } from './ops-listener';
import { AgentReportsConsumer, REPORTS_RETRY_BACKOFF_CAP_MS } from './ingest/agent-reports.consumer';
import { DeviceHealthWatch } from './ingest/device-health';
import { HeartbeatReconciler } from './ingest/heartbeat-reconciler';
import { AllocationReports } from './ingest/allocation-reports';
import { IngestStalls } from './ingest/ingest-stalls';
import { LogStore } from './logs/log-store';
import { LivenessService } from './sagas/liveness.service';
import { StartDeadlines } from './sagas/start-deadlines';
import { WorkloadSaga } from './sagas/workload.saga';
import { TaskActions } from './sagas/taskqueue/task-actions';
import { TaskProgress } from './sagas/taskqueue/task-progress';
import { TaskQueueSaga } from './sagas/taskqueue/taskqueue.saga';
import { RedisQueueMeter } from '@hcn/queue-meter';
import { unrecordedQuotaHolds } from './queries/quotas.query';
import { ClusterView } from './scheduling/cluster-view';
import { PlacementService } from './scheduling/placement.service';
import type { PlacementListener } from './scheduling/reservations';
import { TemplateCatalog } from './scheduling/template-catalog';
import { serveDashboard } from './web/dashboard.controller';
import { applySecurityHeaders } from './web/security-headers';
import type { Clock } from './tokens';
import { Federation } from './federation/federation';
import { federationSetupOf } from './federation/federation.config';
import { httpsOptionsOf } from './tls/listener-tls';

/** Largest JSON request body the API takes (a bigger one is 413 REQUEST.TOO_LARGE). */
const REQUEST_BODY_LIMIT = '4mb';
/** A part of the hub still stopping after this long is named in a warning. */
const SLOW_STOP_MS = 5000;
const closeLogger = new NestLogger('hub-close');

/** A running hub. */
export interface RunningHub {
  readonly app: INestApplication;
  readonly url: string;
  /** Where /metrics and /docs answer: the ops listener's address when configured, else `url`. */
  readonly opsUrl: string;
  readonly metrics: HubMetrics;
  readonly liveness: LivenessService;
  readonly saga: WorkloadSaga;
  readonly view: ClusterView;
  close(): Promise<void>;
}

/** Ports the hub runs on; the caller owns and closes them. */
export interface HubPorts {
  readonly store: EventStore;
  readonly bus: MessageBus;
  readonly readModels: DataSource;
  readonly clock?: Clock;
  /** Supervised subscriptions of other parts of this process (the embedded projector's), for readiness. */
  readonly subscriptions?: SubscriptionHealth;
  /** Where the hub logs; unset: a new `hub` logger on stdout at the configured LOG_LEVEL. */
  readonly logger?: Logger;
  /** Tests only: answers must match their documented schemas, else 500 `API.ANSWER_SCHEMA` (AnswerSchemaCheck). */
  readonly checkAnswers?: boolean;
}

/**
 * Starts the hub: HTTP API (security headers, dashboard), OpenAPI docs and metrics (on the ops listener when one is
 * configured), report ingestion, liveness saga, command dispatcher.
 */
export async function startHub(config: HubConfig, ports: HubPorts): Promise<RunningHub> {
  const clock = ports.clock ?? (() => new Date());
  const metrics = new HubMetrics(ports.subscriptions);
  registerProjectionLag(metrics, ports.readModels);
  const credentials = new AgentCredentials(config.agentSecret);
  const signer = new CommandSigner(credentials, clock);
  const stalls = new IngestStalls(clock, REPORTS_RETRY_BACKOFF_CAP_MS);
  const ingestResumedAt = () => stalls.resumedAt();
  const view = new ClusterView(ports.store, metrics.subscriptions);
  view.federation = federationSetupOf(config.federation); // child sites and peers as candidates (issue 21)
  const hot = new HotStreams(ports.store, (events, first, at) => view.nodeAppended(events, first, at));
  const liveness = new LivenessService(ports.store, config, clock, metrics, view, ingestResumedAt, hot.nodes);
  const logs = new LogStore(ports.readModels);
  const allocationReports = new AllocationReports(logs, hot);
  const consumer = new AgentReportsConsumer(
    ports.bus,
    ports.store,
    credentials,
    liveness,
    metrics,
    allocationReports,
    new DeviceHealthWatch(hot, clock),
    new HeartbeatReconciler(
      view,
      ports.store,
      ports.bus,
      ports.readModels,
      signer,
      clock,
      config.startDeadlineMs,
    ),
    stalls,
    config.reportsBatchWindowMs,
  );
  const dispatcher = new Dispatcher(ports.store, ports.bus, ports.readModels, metrics, signer);
  // run commands to the dispatcher, hand-overs to other sites to the federation's sender, both as appended
  const announcements: PlacementListener = {
    placed: (id, placed, spec) => dispatcher.placed(id, placed, spec),
    delegated: (id, delegated, spec) => federation.delegations?.announce(id, delegated, spec),
  };
  const placement = new PlacementService(ports.store, view, metrics, hot, announcements);
  const templates = new TemplateCatalog(ports.store, metrics.subscriptions);
  const saga = new WorkloadSaga(
    ports.store,
    view,
    placement,
    clock,
    {
      claimDelayMs: config.claimDelayMs,
      tickMs: config.schedulerTickMs,
      orphanSweepMs: config.orphanSweepMs,
      unrecordedHolds: () => unrecordedQuotaHolds(ports.readModels),
    },
    hot,
    metrics.subscriptions,
  );
  const deadlines = new StartDeadlines(
    ports.store,
    dispatcher,
    clock,
    { deadlineMs: config.startDeadlineMs, resends: config.startResends, ingestResumedAt },
    metrics.subscriptions,
  );
  const queueMeter = new RedisQueueMeter();
  const federation = new Federation(config.federation, {
    store: ports.store,
    clock,
    credentials,
    snapshot: () => view.snapshot(),
    health: metrics.subscriptions,
    readModels: ports.readModels,
  });
  const partitions = federation.partitions;
  if (partitions) saga.onSiteChange((event, workloads) => partitions.siteChanged(event, workloads));
  const logger = ports.logger ?? createLogger({ app: 'hub', level: config.logLevel });
  const hubModule = HubModule.register({
    config,
    ...ports,
    metrics,
    credentials,
    clock,
    view,
    placement,
    logs,
    templates,
    hot,
    cadence: liveness.cadence,
    queueMeter,
    federation,
  });
  const app = await NestFactory.create<NestExpressApplication>(HubRootModule.of(hubModule, logger), {
    bufferLogs: true,
    httpsOptions: config.tls ? httpsOptionsOf(config.tls) : undefined, // HTTPS (mTLS) when configured
  });
  await useHubLogger(app);
  traceCommands(app);
  const taskQueues = new TaskQueueSaga(
    ports.store,
    view,
    app.get(TaskActions),
    app.get(TaskProgress),
    clock,
    { tickMs: Math.max(config.schedulerTickMs, 250) },
    metrics.subscriptions,
  );
  app.use(httpMetrics(metrics)); // first: every request is counted, by its route template
  app.use(requestIds()); // X-Request-Id both ways, the correlation id of the request's commands
  app.use(httpTracing()); // a server span per request when tracing is on
  app.use(requestLogging(logger)); // one line per request, with its id
  applySecurityHeaders(app);
  app.useBodyParser('json', { limit: REQUEST_BODY_LIMIT }); // a batch of 500 workloads exceeds the 100 kB default
  app.set('etag', false); // ETags are stream revisions, set by the single-resource GETs (common/http-conventions.ts)
  app.use(apiAnswersNotCached()); // ETags serve If-Match; GETs show live figures, so never a 304
  app.useGlobalFilters(new HcnExceptionFilter());
  app.useGlobalInterceptors(new RequireBodyInterceptor());
  if (ports.checkAnswers) app.useGlobalInterceptors(new AnswerSchemaCheck());
  serveDashboard(app);
  app.enableShutdownHooks();
  const document = openApiDocument(app);
  if (!config.opsHttp) serveDocs(app, document); // else only on the ops listener (as /metrics: HubModule)
  const ops: OpsListener | undefined = config.opsHttp
    ? await startOpsListener(config.opsHttp, metrics, document).catch(async (error: unknown) => {
        await app.close(); // nothing else has started yet
        throw error;
      })
    : undefined;
  liveness.start();
  await view.start();
  templates.start();
  await saga.start();
  await taskQueues.start();
  await consumer.start();
  await dispatcher.start();
  deadlines.start();
  await app.listen(config.httpPort, config.httpHost);
  const address = app.getHttpServer().address() as { port: number };
  const url = `${config.tls ? 'https' : 'http'}://${config.httpHost}:${address.port}`;
  federation.start(url);
  return {
    app,
    url,
    opsUrl: ops?.url ?? url,
    metrics,
    liveness,
    saga,
    view,
    close: async () => {
      const steps: Array<[string, () => Promise<unknown> | undefined]> = [
        ['federation', () => federation.stop()],
        ['agent reports', () => consumer.stop()],
        ['workload saga', () => saga.stop()],
        ['task queues', () => taskQueues.stop()],
        ['start deadlines', () => deadlines.stop()],
        ['dispatcher', () => dispatcher.stop()],
        ['templates', () => templates.stop()],
        ['cluster view', () => view.stop()],
        ['liveness', () => liveness.stop()],
        ['ops listener', () => ops?.close()],
        ['http', () => app.close()],
        ['queue meter', () => queueMeter.close()],
      ];
      for (const [name, stop] of steps) await timedStop(name, stop);
    },
  };
}

/** Stops one part of the hub; one that takes longer than SLOW_STOP_MS is named in a warning (a stuck shutdown). */
async function timedStop(name: string, stop: () => Promise<unknown> | undefined): Promise<void> {
  const slow = setTimeout(
    () => closeLogger.warn(`stopping ${name} takes more than ${SLOW_STOP_MS} ms`),
    SLOW_STOP_MS,
  );
  try {
    await stop();
  } finally {
    clearTimeout(slow);
  }
}
