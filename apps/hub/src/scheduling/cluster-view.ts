import { Position, RecordedHcnEvent } from '@hcn/contracts';
import { CLUSTER_EVENT_TYPES, ClusterFold, FederationSetup } from '@hcn/cluster';
import type { NodeEvent } from '@hcn/domain';
import { EventStore, Subscription, SubscriptionHealth, superviseSubscription } from '@hcn/eventstore';
import { Logger } from '@nestjs/common';

const logger = new Logger('cluster-view');

/** Node events after which the set of usable nodes, or what they offer, may differ. */
const NODE_CHANGES = new Set([
  'NodeRegistered',
  'NodeReregistered',
  'NodeCameOnline',
  'NodeWentOffline',
  'NodeDrainRequested',
  'NodeStopRequested',
  'NodeDeregistered',
  'NodeLabelsChanged',
]);

/**
 * The hub's ClusterFold (`@hcn/cluster`), fed by a subscription to the cluster events and by the node engine's
 * appends (`nodeAppended`): one state, each node event applied once whichever brings it first.
 */
export class ClusterView extends ClusterFold {
  /** How this hub schedules across sites (undefined: on its own tree only). */
  federation: FederationSetup | undefined;
  private subscription: Subscription | undefined;
  private readonly listeners: Array<(event: RecordedHcnEvent) => void> = [];
  private readonly nodeListeners: Array<() => void> = [];

  constructor(
    private readonly store: EventStore,
    private readonly health = new SubscriptionHealth(),
  ) {
    super();
  }

  /** Follows the log; resolves once caught up. */
  start(): Promise<void> {
    return new Promise((resolve) => {
      this.subscription = superviseSubscription(
        this.store,
        {
          filter: { kind: 'eventTypePrefix', prefixes: CLUSTER_EVENT_TYPES },
          onEvent: (event) => this.delivered(event),
          onCaughtUp: () => resolve(),
          onError: (error) => logger.error(error.message),
          coalesceMs: 50,
        },
        { name: 'cluster-view', health: this.health, log: (line) => logger.warn(line) },
      );
    });
  }

  async stop(): Promise<void> {
    await this.subscription?.stop();
  }

  /** Calls `listener` after each delivered event after which capacity may have appeared (a node's, or a child site's). */
  onCapacity(listener: (event: RecordedHcnEvent) => void): void {
    this.listeners.push(listener);
  }

  /** Calls `listener` after each delivered event that changes which nodes exist, are usable or how they are labelled. */
  onNodeChange(listener: () => void): void {
    this.nodeListeners.push(listener);
  }

  /** The node engine's hook: events it just appended to `node-<id>`, the first at `firstRevision`. */
  nodeAppended(events: readonly NodeEvent[], firstRevision: number, position: Position): void {
    this.applyAppended(events, firstRevision, position);
  }

  private delivered(event: RecordedHcnEvent): void {
    if (this.apply(event)) this.listeners.forEach((l) => l(event));
    if (NODE_CHANGES.has(event.type)) this.nodeListeners.forEach((l) => l());
  }
}
