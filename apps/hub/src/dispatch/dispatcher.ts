import { AgentCommand, EventDataOf, Position, RecordedEvent, nodeStream } from '@hcn/contracts';
import { EventStore, Subscription } from '@hcn/eventstore';
import { MessageBus } from '@hcn/messaging';
import { commandTopicFor } from '@hcn/platform';
import { loadCheckpoint, saveCheckpoint } from '@hcn/read-models';
import type { DataSource } from 'typeorm';
import type { HubMetrics } from '../common/metrics';

const CHECKPOINT = 'dispatcher';

/** Which events become agent commands, and how. */
const COMMAND_OF: Record<string, AgentCommand['kind']> = {
  NodeStopRequested: 'stop',
  NodeDrainRequested: 'drain',
};

/**
 * Relays appended command events to each node's domain command topic. It reads only the log (a checkpointed
 * subscription, never a second write beside the append), so nothing is published that was not appended; after
 * a crash it publishes again from the checkpoint and agents drop repeats by command id.
 */
export class Dispatcher {
  private subscription: Subscription | undefined;

  constructor(
    private readonly store: EventStore,
    private readonly bus: MessageBus,
    private readonly dataSource: DataSource,
    private readonly metrics: HubMetrics,
  ) {}

  async start(): Promise<void> {
    const after = await loadCheckpoint(this.dataSource.manager, CHECKPOINT);
    this.subscription = this.store.subscribeToAll({
      after,
      filter: { kind: 'eventTypePrefix', prefixes: Object.keys(COMMAND_OF) },
      onEvent: (event) => this.relay(event),
      onCheckpoint: (position) => this.checkpoint(position),
      onError: (error) => console.error(`[dispatcher] ${error.message}`),
    });
  }

  async stop(): Promise<void> {
    await this.subscription?.stop();
  }

  private async relay(event: RecordedEvent): Promise<void> {
    const kind = COMMAND_OF[event.type];
    if (!kind) return;
    const data = event.data as EventDataOf<'NodeStopRequested'>;
    const domainId = await this.domainOf(data.nodeId);
    if (!domainId) return;
    const command: AgentCommand = {
      commandId: event.eventId,
      nodeId: data.nodeId,
      kind,
      reason: data.reason,
    };
    await this.bus.publish(commandTopicFor(domainId), [{ key: data.nodeId, value: JSON.stringify(command) }]);
    this.metrics.commandsDispatched.inc();
  }

  private async checkpoint(position: Position): Promise<void> {
    await this.dataSource.transaction((tx) => saveCheckpoint(tx, CHECKPOINT, position, 0, new Date()));
  }

  /** The node's current domain, from its stream (commands are rare; a node may move between domains). */
  private async domainOf(nodeId: string): Promise<string | undefined> {
    const events = await this.store.readStream(nodeStream(nodeId), { direction: 'backwards' });
    const registration = events.find((e) => e.type === 'NodeRegistered' || e.type === 'NodeReregistered');
    return (registration?.data as EventDataOf<'NodeRegistered'> | undefined)?.domainId;
  }
}
