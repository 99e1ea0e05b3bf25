import { EVENT_STORE, EventStore } from '@hcn/eventstore';
import { MESSAGE_BUS, MessageBus } from '@hcn/messaging';
import { DynamicModule, Module } from '@nestjs/common';
import { CqrsModule } from '@nestjs/cqrs';
import type { DataSource } from 'typeorm';
import { AgentCredentials } from './auth/agent-credentials';
import { ChangeNodeLabelsHandler } from './commands/change-node-labels/change-node-labels.handler';
import { DrainNodeHandler } from './commands/drain-node/drain-node.handler';
import { NodeOperationsController } from './commands/node-operations.controller';
import { RegisterNodeController } from './commands/register-node/register-node.controller';
import { RegisterNodeHandler } from './commands/register-node/register-node.handler';
import { StopNodeHandler } from './commands/stop-node/stop-node.handler';
import { HubMetrics } from './common/metrics';
import type { HubConfig } from './config';
import { HealthController } from './health/health.controller';
import { NodesController } from './queries/nodes.controller';
import { CLOCK, Clock, HUB_CONFIG, READ_MODELS } from './tokens';
import { DashboardController } from './web/dashboard.controller';

/** What the hub module is built from: adapters are chosen by the caller (embedded or distributed). */
export interface HubDependencies {
  readonly config: HubConfig;
  readonly store: EventStore;
  readonly bus: MessageBus;
  readonly readModels: DataSource;
  readonly metrics: HubMetrics;
  readonly credentials: AgentCredentials;
  readonly clock: Clock;
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
        NodeOperationsController,
        NodesController,
        HealthController,
        DashboardController,
      ],
      providers: [
        { provide: HUB_CONFIG, useValue: deps.config },
        { provide: EVENT_STORE, useValue: deps.store },
        { provide: MESSAGE_BUS, useValue: deps.bus },
        { provide: READ_MODELS, useValue: deps.readModels },
        { provide: CLOCK, useValue: deps.clock },
        { provide: HubMetrics, useValue: deps.metrics },
        { provide: AgentCredentials, useValue: deps.credentials },
        RegisterNodeHandler,
        DrainNodeHandler,
        StopNodeHandler,
        ChangeNodeLabelsHandler,
      ],
    };
  }
}
