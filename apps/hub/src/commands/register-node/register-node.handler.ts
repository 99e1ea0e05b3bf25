import { RegisterNodeResponse, heartbeatStream, nodeStream } from '@hcn/contracts';
import { NodeCommand, NodeEvent, NodeState, nodeDecider } from '@hcn/domain';
import { EVENT_STORE, EventStore } from '@hcn/eventstore';
import { AGENT_REPORTS_TOPIC, commandTopicFor } from '@hcn/platform';
import { Inject } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { AgentCredentials } from '../../auth/agent-credentials';
import { CommandEngine, requestContext } from '@hcn/commands';
import type { HubConfig } from '../../config';
import { HeartbeatCadence } from '../../sagas/heartbeat-cadence';
import { ClusterView } from '../../scheduling/cluster-view';
import { CLOCK, Clock, HUB_CONFIG } from '../../tokens';
import { RegisterNodeCommand } from './register-node.command';

/** Appends NodeRegistered / NodeReregistered (idempotent on node id) and issues the agent's credential. */
@CommandHandler(RegisterNodeCommand)
export class RegisterNodeHandler implements ICommandHandler<RegisterNodeCommand, RegisterNodeResponse> {
  private readonly nodes: CommandEngine<NodeCommand, NodeEvent, NodeState>;

  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(HUB_CONFIG) private readonly config: HubConfig,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly credentials: AgentCredentials,
    private readonly view: ClusterView,
    private readonly cadence: HeartbeatCadence,
  ) {
    this.nodes = new CommandEngine(store, nodeDecider);
  }

  async execute({ request, requestId }: RegisterNodeCommand): Promise<RegisterNodeResponse> {
    const { nodeId } = request;
    const context = requestContext({ kind: 'agent', id: nodeId }, this.clock(), requestId);
    const registration = {
      nodeId,
      domainId: request.domainId,
      hostname: request.hostname,
      arch: request.arch,
      os: request.os,
      cpuCores: request.cpuCores,
      memoryBytes: request.memoryBytes,
      diskBytes: request.diskBytes,
      accelerators: request.accelerators ?? 0,
      devices: request.devices ?? [],
      labels: request.labels,
      isHead: request.isHead,
      agentVersion: request.agentVersion,
      ...(request.runtimes ? { runtimes: [...new Set(request.runtimes)].sort() } : {}),
    };
    await this.store.setStreamMetadata(heartbeatStream(nodeId), {
      maxAge: this.config.heartbeatRetentionSeconds,
    });
    const handled = await this.nodes.handle(
      nodeStream(nodeId),
      { type: 'RegisterNode', registration },
      context,
    );
    handled.events.forEach((e) => this.view.applyNode(e)); // this hub schedules on it at once
    const joining = handled.events.some((e) => e.type === 'NodeRegistered') ? 1 : 0;
    const cadence = this.cadence.current(joining); // scaled with the fleet's size, this node included
    return {
      nodeId,
      credential: this.credentials.issue(nodeId),
      commandKey: this.credentials.commandKey(nodeId),
      reportsTopic: AGENT_REPORTS_TOPIC,
      commandTopic: commandTopicFor(request.domainId),
      heartbeatIntervalSeconds: cadence.intervalSeconds,
      nodeTtlSeconds: cadence.ttlSeconds,
    };
  }
}
