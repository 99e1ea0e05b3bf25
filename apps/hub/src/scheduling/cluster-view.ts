import { DomainDefinition, EventDataOf, RecordedHcnEvent, isEventOfTypes, nodeStream } from '@hcn/contracts';
import {
  NodeCommand,
  NodeEvent,
  NodeState,
  foldRecorded,
  nodeCapacity,
  nodeDecider,
  nodeReserved,
} from '@hcn/domain';
import { EventStore, Subscription, SubscriptionHealth, superviseSubscription } from '@hcn/eventstore';
import { ClusterSnapshot, DomainView, NodeView, SchedulingIndex } from '@hcn/scheduling';
import { deviceViewsOf } from './device-views';

/** Event types the view follows (heartbeats excluded: liveness turns them into online/offline facts). */
export const CLUSTER_EVENT_TYPES = [
  'NodeRegistered',
  'NodeReregistered',
  'NodeWentOffline',
  'NodeCameOnline',
  'NodeDrainRequested',
  'NodeStopRequested',
  'NodeDeregistered',
  'NodeLabelsChanged',
  'NodeDeviceHealthChanged',
  'CapacityReserved',
  'CapacityReleased',
  'DomainDefined',
  'DomainUpdated',
];

/** Node events that can let a waiting workload fit. */
const CAPACITY_APPEARS = new Set([
  'NodeRegistered',
  'NodeReregistered',
  'NodeCameOnline',
  'CapacityReleased',
  'NodeDeviceHealthChanged',
]);

/**
 * The hub's in-memory picture of the tree and the nodes, folded from the log with the node decider. It hands the
 * scheduler an index, rebuilt lazily after structural changes and updated in place for reservations.
 */
export class ClusterView {
  private readonly nodes = new Map<string, NodeState>();
  private readonly domains = new Map<string, DomainDefinition>();
  private readonly placements = new Map<string, number>();
  /**
   * Per held allocation: the nodes reserving for it, and its workload when a CapacityReserved named it (for the
   * saga's orphan sweep; a reservation known only from a re-read node state has none).
   */
  private readonly holders = new Map<string, { nodeIds: Set<string>; workloadId?: string }>();
  private index: SchedulingIndex | undefined;
  private limits: Map<string, { memoryBytes: number; perNode: number }> | undefined;
  private subscription: Subscription | undefined;
  private caughtUp!: Promise<void>;
  private readonly listeners: Array<(event: RecordedHcnEvent) => void> = [];

  constructor(
    private readonly store: EventStore,
    private readonly health = new SubscriptionHealth(),
  ) {}

  /** Follows the log; resolves once caught up. */
  start(): Promise<void> {
    this.caughtUp = new Promise((resolve) => {
      this.subscription = superviseSubscription(
        this.store,
        {
          filter: { kind: 'eventTypePrefix', prefixes: CLUSTER_EVENT_TYPES },
          onEvent: (event) => this.apply(event),
          onCaughtUp: () => resolve(),
          onError: (error) => console.error(`[cluster-view] ${error.message}`),
          coalesceMs: 50,
        },
        { name: 'cluster-view', health: this.health, log: (line) => console.error(line) },
      );
    });
    return this.caughtUp;
  }

  async stop(): Promise<void> {
    await this.subscription?.stop();
  }

  /** Calls `listener` after each applied event whose type suggests capacity appeared. */
  onCapacity(listener: (event: RecordedHcnEvent) => void): void {
    this.listeners.push(listener);
  }

  /** Applies one recorded event (idempotent: node state reservations are keyed by allocation id). */
  apply(event: RecordedHcnEvent): void {
    if (event.type === 'DomainDefined' || event.type === 'DomainUpdated') {
      this.domains.set(event.data.domainId, event.data);
      this.invalidate();
    } else if (isEventOfTypes(event, nodeDecider.eventTypes)) {
      this.applyNode(event);
    } else {
      throw new Error(`Unhandled case: ${event.type} is not a cluster event`);
    }
    if (CAPACITY_APPEARS.has(event.type) || event.type.startsWith('Domain'))
      this.listeners.forEach((l) => l(event));
  }

  /** Applies a domain definition this hub just appended, without waiting for the subscription. */
  defineDomain(definition: DomainDefinition): void {
    this.domains.set(definition.domainId, definition);
    this.invalidate();
  }

  /** Applies a node event this hub just appended, without waiting for the subscription. */
  applyNode(event: NodeEvent): void {
    const nodeId = event.data.nodeId;
    const before = this.nodes.get(nodeId) ?? nodeDecider.initialState;
    if (event.type === 'CapacityReserved' && before.reservations.has(event.data.allocationId)) return;
    if (event.type === 'CapacityReleased' && !before.reservations.has(event.data.allocationId)) return;
    const after = nodeDecider.evolve(before, event);
    this.nodes.set(nodeId, after);
    if (event.type === 'CapacityReserved') {
      this.addHolder(event.data.allocationId, nodeId).workloadId = event.data.workloadId;
      this.countPlacement(after.registration?.domainId);
      this.index?.reserve(nodeId, event.data.resources, event.data.devices ?? []);
    } else if (event.type === 'CapacityReleased') {
      const grants = before.deviceGrants[event.data.allocationId] ?? [];
      const held = before.reservations.get(event.data.allocationId);
      if (held) this.index?.release(nodeId, held, grants);
      this.dropHolder(event.data.allocationId, nodeId);
    } else {
      this.trackHolders(nodeId, before, after);
      this.invalidate();
    }
  }

  /**
   * Applies a reservation about to be appended, as the node decider would on this view's state, so that decisions
   * taken while its append is in flight see it (a batch's submissions, concurrent requests). Nothing happens when
   * the view would refuse it; `refreshNode` undoes it when the append is refused.
   */
  reserveTentatively(command: NodeCommand & { type: 'ReserveCapacity' }): void {
    const state = this.nodes.get(command.nodeId);
    if (!state) return;
    let events: NodeEvent[];
    try {
      events = nodeDecider.decide(command, state);
    } catch {
      return;
    }
    events.forEach((e) => this.applyNode(e));
  }

  /** Counts a placement in a domain and its ancestors (round-robin reads these counters). */
  private countPlacement(domainId: string | undefined): void {
    for (let at = domainId, steps = 0; at && steps < 64; steps++) {
      this.placements.set(at, (this.placements.get(at) ?? 0) + 1);
      at = this.domains.get(at)?.parentId ?? undefined;
    }
  }

  /** Re-reads one node's stream (after a reservation was refused on stale state). */
  async refreshNode(nodeId: string): Promise<void> {
    const events = await this.store.readStream(nodeStream(nodeId));
    const before = this.nodes.get(nodeId) ?? nodeDecider.initialState;
    const after = foldRecorded(nodeDecider, events);
    this.nodes.set(nodeId, after);
    this.trackHolders(nodeId, before, after);
    this.invalidate();
  }

  /** The scheduling index over the current picture. */
  schedulingIndex(): SchedulingIndex {
    this.index ??= SchedulingIndex.fromSnapshot(this.snapshot());
    return this.index;
  }

  /** A node's folded state. */
  node(nodeId: string): NodeState | undefined {
    return this.nodes.get(nodeId);
  }

  /** The allocations a node holds capacity for, with their workload when this view saw their reservation. */
  heldOn(nodeId: string): Array<{ allocationId: string; workloadId?: string }> {
    const node = this.nodes.get(nodeId);
    if (!node) return [];
    return [...node.reservations.keys()].map((allocationId) => ({
      allocationId,
      workloadId: this.holders.get(allocationId)?.workloadId,
    }));
  }

  /** Node id that holds a reservation for `allocationId`, if any. */
  reservationsOf(allocationId: string): string[] {
    return [...(this.holders.get(allocationId)?.nodeIds ?? [])];
  }

  private addHolder(allocationId: string, nodeId: string): { nodeIds: Set<string>; workloadId?: string } {
    const held = this.holders.get(allocationId) ?? { nodeIds: new Set<string>() };
    held.nodeIds.add(nodeId);
    this.holders.set(allocationId, held);
    return held;
  }

  private dropHolder(allocationId: string, nodeId: string): void {
    const held = this.holders.get(allocationId);
    held?.nodeIds.delete(nodeId);
    if (held?.nodeIds.size === 0) this.holders.delete(allocationId);
  }

  /** Every held allocation whose CapacityReserved this view saw: its workload and the nodes reserving for it. */
  *heldReservations(): IterableIterator<{ allocationId: string; workloadId: string; nodeIds: string[] }> {
    for (const [allocationId, { nodeIds, workloadId }] of this.holders) {
      if (workloadId) yield { allocationId, workloadId, nodeIds: [...nodeIds] };
    }
  }

  /** Keeps `holders` (allocation id -> nodes reserving for it) in step with one node's reservations. */
  private trackHolders(nodeId: string, before: NodeState, after: NodeState): void {
    if (before.reservations === after.reservations) return;
    for (const id of before.reservations.keys()) {
      if (!after.reservations.has(id)) this.dropHolder(id, nodeId);
    }
    for (const id of after.reservations.keys()) {
      if (!before.reservations.has(id)) this.addHolder(id, nodeId);
    }
  }

  /** Per vendor, the largest device and the most devices on one node, over registered nodes. */
  deviceLimits(): Map<string, { memoryBytes: number; perNode: number }> {
    this.limits ??= this.computeDeviceLimits();
    return this.limits;
  }

  /** Drops what is derived from the nodes and domains (the index, the device limits) after a structural change. */
  private invalidate(): void {
    this.index = undefined;
    this.limits = undefined;
  }

  private computeDeviceLimits(): Map<string, { memoryBytes: number; perNode: number }> {
    const limits = new Map<string, { memoryBytes: number; perNode: number }>();
    for (const state of this.nodes.values()) {
      if (state.status === 'deregistered') continue;
      const counts = new Map<string, number>();
      for (const d of state.registration?.devices ?? []) {
        counts.set(d.vendor, (counts.get(d.vendor) ?? 0) + 1);
        const l = limits.get(d.vendor) ?? { memoryBytes: 0, perNode: 0 };
        limits.set(d.vendor, {
          memoryBytes: Math.max(l.memoryBytes, d.memoryBytes ?? 0),
          perNode: l.perNode,
        });
      }
      for (const [vendor, n] of counts)
        limits.get(vendor)!.perNode = Math.max(limits.get(vendor)!.perNode, n);
    }
    return limits;
  }

  /** Parent of every defined domain (for tree checks). */
  domainParents(): Map<string, string | null> {
    return new Map([...this.domains].map(([id, d]) => [id, d.parentId]));
  }

  /** A domain's definition. */
  domain(domainId: string): DomainDefinition | undefined {
    return this.domains.get(domainId);
  }

  /** The tree and nodes as the scheduler sees them; domains nodes name but nobody defined become roots. */
  snapshot(): ClusterSnapshot {
    const nodes: NodeView[] = [];
    const undefinedDomains = new Set<string>();
    for (const [nodeId, state] of this.nodes) {
      const registration = state.registration;
      if (!registration || state.status === 'deregistered') continue;
      if (!this.domains.has(registration.domainId)) undefinedDomains.add(registration.domainId);
      const devices = deviceViewsOf(state);
      nodes.push({
        nodeId,
        domainId: registration.domainId,
        labels: state.labels,
        online: state.status === 'online',
        draining: state.draining,
        capacity: nodeCapacity(state),
        allocated: nodeReserved(state),
        ...(devices ? { devices } : {}),
        ...(registration.runtimes ? { runtimes: registration.runtimes } : {}),
      });
    }
    const domains: DomainView[] = [...this.domains.values()].map((d) => this.domainView(d));
    for (const domainId of undefinedDomains) {
      domains.push({
        domainId,
        parentId: null,
        region: null,
        labels: {},
        policy: 'least-loaded',
        placements: this.placements.get(domainId) ?? 0,
      });
    }
    return { domains, nodes };
  }

  private domainView(d: DomainDefinition): DomainView {
    const parentId = d.parentId && this.domains.has(d.parentId) ? d.parentId : null;
    return {
      domainId: d.domainId,
      parentId,
      region: d.region,
      labels: d.labels,
      policy: d.policy,
      placements: this.placements.get(d.domainId) ?? 0,
    };
  }
}

/** The data of a capacity reservation. */
export type Reservation = EventDataOf<'CapacityReserved'>;
