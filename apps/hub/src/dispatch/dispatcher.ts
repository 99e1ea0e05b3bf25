import {
  AgentCommand,
  BoundedMap,
  EventDataOf,
  Position,
  RecordedEventOf,
  RecordedHcnEvent,
  WorkloadSpec,
  nodeStream,
  siteOfPlace,
  workloadStream,
} from '@hcn/contracts';
import { EventStore, Subscription, superviseSubscription } from '@hcn/eventstore';
import type { CommandSigner } from './command-signer';
import { MessageBus, OutgoingMessage } from '@hcn/messaging';
import { commandTopicFor, traceHeaders } from '@hcn/platform';
import type { DataSource } from 'typeorm';
import { AheadOfLog } from '../common/ahead-of-log';
import { ThrottledCheckpoint } from '../common/throttled-checkpoint';
import type { HubMetrics } from '../common/metrics';
import type { PlacementListener } from '../scheduling/reservations';
import { placementCommand } from './placement-command';
import { Logger } from '@nestjs/common';

const logger = new Logger('dispatcher');

const CHECKPOINT = 'dispatcher';
/** Commands buffered before a publish even when the page is not over. */
const MAX_BUFFERED = 500;

/** Event types the dispatcher reads: commands to relay, and the specs and domains it needs to build them. */
const FOLLOWED = [
  'NodeStopRequested',
  'NodeDrainRequested',
  'AllocationPlaced',
  'AllocationStopRequested',
  'AllocationLost',
  'WorkloadSubmitted',
  'WorkloadUpdated',
];

/** Placements published early are remembered this long at most, should the log never deliver them back. */
const EARLY_LIMIT = 100_000;

/**
 * Relays appended command events to each node's domain command topic. It reads only the log (a checkpointed
 * subscription, never a second write beside the append), so nothing is published that was not appended; after
 * a crash it publishes again from the checkpoint and agents drop repeats by command id. Placements this hub
 * appended itself are published as soon as their append returns (`placed`); the relay then skips them, unless
 * that early publish failed.
 */
export class Dispatcher implements PlacementListener {
  private subscription: Subscription | undefined;
  /** Spec of each workload generation seen, the latest ones (a miss reads the workload's stream). */
  private readonly specs: BoundedMap<WorkloadSpec>;
  /** Domain of each allocation placed, the latest ones (a miss reads the node's stream). */
  private readonly domains: BoundedMap<string>;
  /** Saved at most once a second: a crash republishes at most that much; agents drop repeats. */
  private readonly checkpoint: ThrottledCheckpoint;
  private readonly buffer: Array<{ topic: string; messages: OutgoingMessage[] }> = [];
  /** Early publishes by command id (true once published, false when it failed), and placements the log brought first. */
  private readonly ahead: AheadOfLog<boolean>;
  /** Run commands announced by `placed` and not yet published. */
  private readonly announced: Array<{
    topic: string;
    message: OutgoingMessage;
    settle(published: boolean): void;
  }> = [];

  constructor(
    private readonly store: EventStore,
    private readonly bus: MessageBus,
    dataSource: DataSource,
    private readonly metrics: HubMetrics,
    private readonly signer: CommandSigner,
    cacheLimit = 20_000,
  ) {
    this.specs = new BoundedMap(cacheLimit);
    this.domains = new BoundedMap(cacheLimit * 5);
    this.ahead = new AheadOfLog(EARLY_LIMIT, cacheLimit);
    this.checkpoint = new ThrottledCheckpoint(dataSource, CHECKPOINT);
  }

  async start(): Promise<void> {
    const after = await this.checkpoint.load();
    this.subscription = superviseSubscription(
      this.store,
      {
        after,
        filter: { kind: 'eventTypePrefix', prefixes: FOLLOWED },
        onEvent: (event) => this.relay(event),
        onCheckpoint: (position) => this.passed(position),
        onError: (error) => logger.error(error.message),
      },
      { name: 'dispatcher', health: this.metrics.subscriptions, log: (line) => logger.warn(line) },
    );
  }

  async stop(): Promise<void> {
    await this.subscription?.stop();
    await this.flush();
    await this.checkpoint.save();
  }

  /**
   * Publishes the run command of a placement this hub has just appended, ahead of the log. Placements announced
   * in the same turn of the event loop (a batch's, concurrent requests') go out in one publish.
   */
  placed(commandId: string, placed: EventDataOf<'AllocationPlaced'>, spec: WorkloadSpec): void {
    // not started when too many wait (the relay publishes it from the log) or the log was faster: relayed already
    this.ahead.start(commandId, () => {
      const command = placementCommand(commandId, placed, spec);
      const message = { ...this.signer.message(command), headers: traceHeaders() }; // the appending span's trace
      const topic = commandTopicFor(placed.domainId);
      const published = new Promise<boolean>((settle) => this.announced.push({ topic, message, settle }));
      if (this.announced.length === 1) setImmediate(() => void this.publishAnnounced());
      return published;
    });
  }

  /** Publishes a placement's run command again, with its command id (an agent that applied it ignores it). */
  async resend(placed: RecordedEventOf<'AllocationPlaced'>): Promise<void> {
    const command = await this.commandOf(placed);
    if (!command) return;
    const { domainId } = placed.data;
    const message = { ...this.signer.message(command), headers: traceOf(placed) };
    await this.bus.publishAll([{ topic: commandTopicFor(domainId), messages: [message] }]);
    this.metrics.commandsDispatched.inc();
  }

  /** One publish of every run command announced since the last one; each learns whether it went out. */
  private async publishAnnounced(): Promise<void> {
    const batch = this.announced.splice(0, this.announced.length);
    const byTopic = new Map<string, OutgoingMessage[]>();
    for (const { topic, message } of batch) {
      const messages = byTopic.get(topic);
      if (messages) messages.push(message);
      else byTopic.set(topic, [message]);
    }
    try {
      await this.bus.publishAll([...byTopic].map(([topic, messages]) => ({ topic, messages })));
      this.metrics.commandsDispatched.inc(batch.length);
      batch.forEach((b) => b.settle(true));
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      logger.error(`early publish of ${batch.length} commands: ${reason}; the relay publishes them`);
      batch.forEach((b) => b.settle(false));
    }
  }

  /** Builds the command of an event and buffers it; the buffer is published before each checkpoint. */
  private async relay(event: RecordedHcnEvent): Promise<void> {
    // only placements are published early
    const early = this.ahead.claim(event.eventId, event.type === 'AllocationPlaced');
    if (early) {
      if (event.type === 'AllocationPlaced') this.domains.set(event.data.allocationId, event.data.domainId);
      if (await early) return;
    }
    const command = await this.commandOf(event);
    if (!command) return;
    const domainId = await this.domainOf(command.nodeId, event);
    if (!domainId) return;
    this.buffer.push({
      topic: commandTopicFor(domainId),
      messages: [{ ...this.signer.message(command), headers: traceOf(event) }],
    });
    if (this.buffer.length >= MAX_BUFFERED) await this.flush();
  }

  /** Publishes what is buffered, in order, in one batch. */
  private async flush(): Promise<void> {
    if (this.buffer.length === 0) return;
    const batch = this.buffer.splice(0, this.buffer.length);
    await this.bus.publishAll(batch);
    this.metrics.commandsDispatched.inc(batch.length);
  }

  private async commandOf(event: RecordedHcnEvent): Promise<AgentCommand | undefined> {
    switch (event.type) {
      case 'WorkloadSubmitted':
        this.specs.set(`${event.data.workloadId}@1`, event.data.spec);
        return undefined;
      case 'WorkloadUpdated':
        this.specs.set(`${event.data.workloadId}@${event.data.generation}`, event.data.spec);
        return undefined;
      case 'NodeStopRequested':
      case 'NodeDrainRequested': {
        const data = event.data;
        const kind = event.type === 'NodeStopRequested' ? 'stop' : 'drain';
        return { commandId: event.eventId, nodeId: data.nodeId, kind, reason: data.reason };
      }
      case 'AllocationPlaced': {
        const data = event.data;
        this.domains.set(data.allocationId, data.domainId);
        const spec = await this.specOf(data.workloadId, data.generation);
        return spec ? placementCommand(event.eventId, data, spec) : undefined;
      }
      case 'AllocationStopRequested':
      case 'AllocationLost': {
        const data = event.data;
        if (siteOfPlace(data.nodeId) !== undefined) return undefined; // delegated: the site is told, not a node
        return {
          commandId: event.eventId,
          nodeId: data.nodeId,
          kind: 'stop-allocation',
          workloadId: data.workloadId,
          allocationId: data.allocationId,
          gracePeriodSeconds: 'gracePeriodSeconds' in data ? data.gracePeriodSeconds : 0,
          reason: data.reason,
        };
      }
      default:
        return undefined;
    }
  }

  /** The spec of one generation: cached from the subscription, read from the stream after a restart. */
  private async specOf(workloadId: string, generation: number): Promise<WorkloadSpec | undefined> {
    const cached = this.specs.get(`${workloadId}@${generation}`);
    if (cached) return cached;
    for (const e of await this.store.readStream(workloadStream(workloadId))) {
      if (e.type === 'WorkloadSubmitted') this.specs.set(`${workloadId}@1`, e.data.spec);
      if (e.type === 'WorkloadUpdated') this.specs.set(`${workloadId}@${e.data.generation}`, e.data.spec);
    }
    return this.specs.get(`${workloadId}@${generation}`);
  }

  /** Everything up to `position` read: publishes what the page produced, then moves the checkpoint. */
  private async passed(position: Position): Promise<void> {
    await this.flush();
    await this.checkpoint.reached(position);
  }

  /** The command topic's domain: the allocation's, else the node's current one from its stream. */
  private async domainOf(nodeId: string, event: RecordedHcnEvent): Promise<string | undefined> {
    const allocationId = 'allocationId' in event.data ? event.data.allocationId : undefined;
    const known = allocationId ? this.domains.get(allocationId) : undefined;
    if (known) return known;
    const events = await this.store.readStream(nodeStream(nodeId), { direction: 'backwards' });
    for (const e of events)
      if (e.type === 'NodeRegistered' || e.type === 'NodeReregistered') return e.data.domainId;
    return undefined;
  }
}

/** Message headers continuing the trace an event was appended in (W3C `traceparent`), if it was traced. */
function traceOf(event: RecordedHcnEvent): Record<string, string> {
  const traceparent = event.metadata.traceparent;
  return traceparent ? { traceparent } : {};
}
