import { RegisterNodeResponse, ServedFramework, heartbeatStream, nodeStream } from '@hcn/contracts';
import { EVENT_STORE, EventStore } from '@hcn/eventstore';
import { AGENT_REPORTS_TOPIC, commandTopicFor } from '@hcn/platform';
import { Inject } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { AgentCredentials } from '../../auth/agent-credentials';
import { HotStreams } from '../../common/hot-streams';
import type { HubConfig } from '../../config';
import { HeartbeatCadence } from '../../sagas/heartbeat-cadence';
import { CLOCK, Clock, HUB_CONFIG } from '../../tokens';
import { RegisterNodeCommand } from './register-node.command';
import { httpCommandContext } from '../../common/request-scope';

/** Appends NodeRegistered / NodeReregistered (idempotent on node id) and issues the agent's credential. */
@CommandHandler(RegisterNodeCommand)
export class RegisterNodeHandler implements ICommandHandler<RegisterNodeCommand, RegisterNodeResponse> {
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(HUB_CONFIG) private readonly config: HubConfig,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly credentials: AgentCredentials,
    private readonly hot: HotStreams,
    private readonly cadence: HeartbeatCadence,
  ) {}

  async execute({ request, requestId }: RegisterNodeCommand): Promise<RegisterNodeResponse> {
    const { nodeId } = request;
    const context = httpCommandContext({ kind: 'agent', id: nodeId }, this.clock(), requestId);
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
      ...(request.modelFrameworks ? { modelFrameworks: servedInOrder(request.modelFrameworks) } : {}),
      ...(request.address ? { address: request.address } : {}),
    };
    await this.store.setStreamMetadata(heartbeatStream(nodeId), {
      maxAge: this.config.heartbeatRetentionSeconds,
    });
    // the hub's node engine: the cluster view folds the registration as appended, this hub schedules on it at once
    const handled = await this.hot.nodes.handle(
      nodeStream(nodeId),
      { type: 'RegisterNode', registration },
      context,
    );
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

/** Served frameworks in a stable order (by name, runtimes sorted, duplicates merged): re-registering the same is a no-op. */
function servedInOrder(frameworks: readonly ServedFramework[]): ServedFramework[] {
  const merged = new Map<string, Set<ServedFramework['runtimes'][number]>>();
  for (const f of frameworks)
    merged.set(f.framework, new Set([...(merged.get(f.framework) ?? []), ...f.runtimes]));
  return [...merged]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([framework, runtimes]) => ({ framework, runtimes: [...runtimes].sort() }));
}
