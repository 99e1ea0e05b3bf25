import { EVENT_STORE, EventStore } from '@hcn/eventstore';
import { MESSAGE_BUS, MessageBus } from '@hcn/messaging';
import { QUEUE_METER, QueueMeter } from '@hcn/queue-meter';
import { TaskActions } from './sagas/taskqueue/task-actions';
import { TaskProgress } from './sagas/taskqueue/task-progress';
import { DynamicModule, Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { CqrsModule } from '@nestjs/cqrs';
import type { DataSource } from 'typeorm';
import { AgentCredentials } from './auth/agent-credentials';
import { ApiTokens } from './auth/api-tokens';
import { AuthGuard } from './auth/auth.guard';
import { DefineDomainHandler } from './commands/define-domain/define-domain.handler';
import { TemplateChangeHandler } from './commands/define-template/define-template.handler';
import { DeleteWorkloadHandler } from './commands/delete-workload/delete-workload.handler';
import { RestartWorkloadHandler } from './commands/restart-workload/restart-workload.handler';
import { GiveUpAllocationHandler } from './commands/give-up-allocation/give-up-allocation.handler';
import { SetQuotaHandler } from './commands/set-quota/set-quota.handler';
import { StopWorkloadHandler } from './commands/stop-workload/stop-workload.handler';
import { StopWorkloadsHandler } from './commands/stop-workloads/stop-workloads.handler';
import { SubmitWorkloadsHandler } from './commands/submit-workloads/submit-workloads.handler';
import { UpdateWorkloadHandler } from './commands/update-workload/update-workload.handler';
import { ChangeNodeLabelsController } from './commands/change-node-labels/change-node-labels.controller';
import { DefineDomainController } from './commands/define-domain/define-domain.controller';
import { DefineTemplateController } from './commands/define-template/define-template.controller';
import { DeleteTemplateController } from './commands/delete-template/delete-template.controller';
import { DeleteWorkloadController } from './commands/delete-workload/delete-workload.controller';
import { DeregisterNodeController } from './commands/deregister-node/deregister-node.controller';
import { DrainNodeController } from './commands/drain-node/drain-node.controller';
import { InstantiateTemplateController } from './commands/instantiate-template/instantiate-template.controller';
import { RestartWorkloadController } from './commands/restart-workload/restart-workload.controller';
import { GiveUpAllocationController } from './commands/give-up-allocation/give-up-allocation.controller';
import { SetQuotaController } from './commands/set-quota/set-quota.controller';
import { StopNodeController } from './commands/stop-node/stop-node.controller';
import { StopWorkloadController } from './commands/stop-workload/stop-workload.controller';
import { SubmitWorkloadController } from './commands/submit-workload/submit-workload.controller';
import { SubmitWorkloadsController } from './commands/submit-workloads/submit-workloads.controller';
import { UpdateDomainController } from './commands/update-domain/update-domain.controller';
import { UpdateTemplateController } from './commands/update-template/update-template.controller';
import { UpdateWorkloadController } from './commands/update-workload/update-workload.controller';
import { AgentSelfController } from './queries/agents.controller';
import { DomainQueriesController } from './queries/domains.controller';
import { QuotaQueriesController } from './queries/quotas.controller';
import { SessionController } from './queries/session.controller';
import { TemplateQueriesController } from './queries/templates.controller';
import { LogStore } from './logs/log-store';
import { WorkloadQueriesController } from './queries/workloads.controller';
import { ServicesController } from './queries/services.controller';
import { ClusterView } from './scheduling/cluster-view';
import { PlacementService } from './scheduling/placement.service';
import { TemplateCatalog } from './scheduling/template-catalog';
import { ChangeNodeLabelsHandler } from './commands/change-node-labels/change-node-labels.handler';
import { DeregisterNodeHandler } from './commands/deregister-node/deregister-node.handler';
import { DrainNodeHandler } from './commands/drain-node/drain-node.handler';
import { BootstrapTokenController } from './commands/issue-bootstrap-token/bootstrap-token.controller';
import { ReenrolmentTokenController } from './commands/issue-reenrolment-token/reenrolment-token.controller';
import { RegisterNodeController } from './commands/register-node/register-node.controller';
import { RegisterNodeHandler } from './commands/register-node/register-node.handler';
import { StopNodeHandler } from './commands/stop-node/stop-node.handler';
import { HotStreams } from './common/hot-streams';
import { HeartbeatCadence } from './sagas/heartbeat-cadence';
import { HubMetrics } from './common/metrics';
import type { HubConfig } from './config';
import { HealthController } from './health/health.controller';
import { MetricsController } from './health/metrics.controller';
import { NodesController } from './queries/nodes.controller';
import { CLOCK, Clock, HUB_CONFIG, READ_MODELS } from './tokens';
import { DashboardController } from './web/dashboard.controller';
import { AuditChainController } from './queries/audit/chain/chain.controller';
import { AuditExplainController } from './queries/audit/explain/explain.controller';
import { ReportsController } from './queries/audit/reports/reports.controller';
import { AuditTimeTravelController } from './queries/audit/time-travel/time-travel.controller';
import { AuditVerifyController } from './queries/audit/verify/verify.controller';
import { AuditSitePartsController } from './queries/audit/sites/site-parts.controller';
import { ChangeFeedGateway } from './gateway/change-feed.gateway';
import { DelegationsController } from './queries/delegations.controller';
import { HistoryController } from './queries/history.controller';
import { DevicesController } from './queries/devices.controller';
import { AllocationsController } from './queries/allocations.controller';
import { TaskQueueChangeHandler } from './commands/create-taskqueue/taskqueue-change.handler';
import { CreateTaskQueueController } from './commands/create-taskqueue/create-taskqueue.controller';
import { DeleteTaskQueueController } from './commands/delete-taskqueue/delete-taskqueue.controller';
import { AddTaskController } from './commands/add-task/add-task.controller';
import { AdvanceTaskQueueController } from './commands/advance-taskqueue/advance-taskqueue.controller';
import { PauseTaskQueueController } from './commands/pause-taskqueue/pause-taskqueue.controller';
import { CancelTaskController } from './commands/cancel-task/cancel-task.controller';
import { RetryTaskController } from './commands/retry-task/retry-task.controller';
import { TaskQueuesController } from './queries/taskqueues.controller';
import { Federation } from './federation/federation';
import { FEDERATION_CONTROLLERS } from './federation/federation.controllers';

/** What the hub module is built from: adapters are chosen by the caller (embedded or distributed). */
export interface HubDependencies {
  readonly config: HubConfig;
  readonly store: EventStore;
  readonly bus: MessageBus;
  readonly readModels: DataSource;
  readonly metrics: HubMetrics;
  readonly credentials: AgentCredentials;
  readonly clock: Clock;
  readonly view: ClusterView;
  readonly placement: PlacementService;
  readonly logs: LogStore;
  readonly templates: TemplateCatalog;
  readonly hot: HotStreams;
  /** The heartbeat interval agents are told (liveness's, scaled with the fleet). */
  readonly cadence: HeartbeatCadence;
  /** Reads Redis queue lengths (task queue progress and auto-advance). */
  readonly queueMeter: QueueMeter;
  /** Sites, links and gossip (federation). */
  readonly federation: Federation;
}

/** The hub's Nest module: controllers, CQRS command handlers and the ports as providers. */
@Module({})
export class HubModule {
  static register(deps: HubDependencies): DynamicModule {
    return {
      module: HubModule,
      imports: [CqrsModule.forRoot()],
      controllers: [
        RegisterNodeController,
        AgentSelfController,
        DrainNodeController,
        DeregisterNodeController,
        StopNodeController,
        ChangeNodeLabelsController,
        ReenrolmentTokenController,
        BootstrapTokenController,
        NodesController,
        HistoryController,
        SubmitWorkloadController,
        SubmitWorkloadsController,
        StopWorkloadController,
        RestartWorkloadController,
        GiveUpAllocationController,
        UpdateWorkloadController,
        DeleteWorkloadController,
        WorkloadQueriesController,
        ServicesController,
        DefineDomainController,
        UpdateDomainController,
        DomainQueriesController,
        SetQuotaController,
        QuotaQueriesController,
        DefineTemplateController,
        TemplateQueriesController,
        UpdateTemplateController,
        DeleteTemplateController,
        InstantiateTemplateController,
        HealthController,
        ...(deps.config.opsHttp ? [] : [MetricsController]), // else only on the ops listener
        DashboardController,
        AuditChainController,
        AuditExplainController,
        AuditTimeTravelController,
        AuditVerifyController,
        AuditSitePartsController,
        ReportsController,
        SessionController,
        DelegationsController,
        DevicesController,
        AllocationsController,
        CreateTaskQueueController,
        DeleteTaskQueueController,
        AddTaskController,
        AdvanceTaskQueueController,
        PauseTaskQueueController,
        CancelTaskController,
        RetryTaskController,
        TaskQueuesController,
        ...FEDERATION_CONTROLLERS,
      ],
      providers: [
        { provide: HUB_CONFIG, useValue: deps.config },
        { provide: EVENT_STORE, useValue: deps.store },
        { provide: MESSAGE_BUS, useValue: deps.bus },
        { provide: READ_MODELS, useValue: deps.readModels },
        { provide: CLOCK, useValue: deps.clock },
        { provide: HubMetrics, useValue: deps.metrics },
        { provide: AgentCredentials, useValue: deps.credentials },
        { provide: ApiTokens, useValue: new ApiTokens(deps.config.apiTokens) },
        { provide: ClusterView, useValue: deps.view },
        { provide: PlacementService, useValue: deps.placement },
        { provide: LogStore, useValue: deps.logs },
        { provide: TemplateCatalog, useValue: deps.templates },
        { provide: HotStreams, useValue: deps.hot },
        { provide: HeartbeatCadence, useValue: deps.cadence },
        { provide: QUEUE_METER, useValue: deps.queueMeter },
        { provide: Federation, useValue: deps.federation },
        { provide: APP_GUARD, useClass: AuthGuard },
        TaskActions,
        TaskProgress,
        RegisterNodeHandler,
        DrainNodeHandler,
        DeregisterNodeHandler,
        StopNodeHandler,
        ChangeNodeLabelsHandler,
        SubmitWorkloadsHandler,
        StopWorkloadHandler,
        StopWorkloadsHandler,
        RestartWorkloadHandler,
        GiveUpAllocationHandler,
        UpdateWorkloadHandler,
        DeleteWorkloadHandler,
        DefineDomainHandler,
        SetQuotaHandler,
        TemplateChangeHandler,
        TaskQueueChangeHandler,
        ChangeFeedGateway,
      ],
    };
  }
}
