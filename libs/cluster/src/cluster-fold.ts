import {
  DecisionBasisRecord,
  DomainDefinition,
  FederationBasisRecord,
  Position,
  RecordedHcnEvent,
  isEventOfTypes,
} from '@hcn/contracts';
import { NodeEvent, NodeState, nodeDecider } from '@hcn/domain';
import { ClusterSnapshot, PlacementRequest, SchedulingIndex } from '@hcn/scheduling';
import { ClusterCheckpoint, restoredNodeState, storedNodeState } from './cluster-checkpoint';
import { DeviceLimits, clusterSnapshot, deviceLimitsOf } from './cluster-snapshot';
import { FederatedDecision, FederationSetup, decideFederated } from './federated-decision';
import { ChildCandidate, SITE_EVENT_TYPES, SiteBook } from './site-candidates';
import { ViewBasis } from './view-basis';

/** Event types the fold follows (heartbeats excluded: liveness turns them into online/offline facts). */
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
  ...SITE_EVENT_TYPES,
];

/** Event types that can let a waiting workload fit (capacity appears, or the tree changes). */
export const CAPACITY_APPEARS = new Set([
  'NodeRegistered',
  'NodeReregistered',
  'NodeCameOnline',
  'CapacityReleased',
  'NodeDeviceHealthChanged',
  'DomainDefined',
  'DomainUpdated',
]);

/** One allocation's holders: the nodes reserving for it, and its workload when a CapacityReserved named it. */
interface Holders {
  nodeIds: Set<string>;
  workloadId?: string;
}

/**
 * Node and domain state folded from the log with the node decider, in stream order: each node stream's events
 * are applied once (keyed by stream revision), whether they come from a subscription, a replay, or the append
 * that wrote them. Hands the scheduler an index, rebuilt lazily after structural changes and updated in place for
 * reservations. Pure: no store, no framework.
 */
export class ClusterFold {
  private readonly nodes = new Map<string, NodeState>();
  /** Per node: the revision of the last event of its stream applied (-1: none). */
  private readonly revisions = new Map<string, number>();
  private readonly domains = new Map<string, DomainDefinition>();
  private readonly placements = new Map<string, number>();
  private readonly holders = new Map<string, Holders>();
  private index: SchedulingIndex | undefined;
  private limits: DeviceLimits | undefined;
  private readonly applied = new ViewBasis();
  private readonly sites = new SiteBook();

  /**
   * Applies one recorded cluster event, in log order; a node event at or below the node's applied revision is
   * skipped. True when waiting work may fit now: an event of CAPACITY_APPEARS, or a child site with more free room.
   */
  apply(event: RecordedHcnEvent): boolean {
    this.applied.delivered(event.position);
    if (event.type === 'DomainDefined' || event.type === 'DomainUpdated') {
      this.defineDomain(event.data);
    } else if (SITE_EVENT_TYPES.includes(event.type)) {
      return this.sites.apply(event);
    } else if (isEventOfTypes(event, nodeDecider.eventTypes)) {
      this.applyNodeAt(event, event.revision);
    } else {
      throw new Error(`Unhandled case: ${event.type} is not a cluster event`);
    }
    return CAPACITY_APPEARS.has(event.type);
  }

  /**
   * Applies events just appended to one node stream, the first at `firstRevision`, when they follow the last one
   * applied; otherwise (the stream moved on meanwhile, unseen here) they are left to the log. True when applied.
   * `position` (the append's, in the log) is noted in the basis decisions record.
   */
  applyAppended(events: readonly NodeEvent[], firstRevision: number, position?: Position): boolean {
    if (events.length === 0) return false;
    const nodeId = events[0].data.nodeId;
    const applies = firstRevision === this.revisionOf(nodeId) + 1;
    if (position) this.applied.appended(nodeId, position, applies);
    if (!applies) return false;
    events.forEach((event, i) => this.applyNodeAt(event, firstRevision + i));
    return true;
  }

  /**
   * Everything this fold holds, for a replay to start from (ClusterFold.restore). Only meaningful for a fold fed in
   * log order alone (no `applyAppended`): it then holds exactly the cluster events up to its last position.
   */
  checkpoint(): ClusterCheckpoint {
    return {
      version: 1,
      nodes: [...this.nodes].map(([nodeId, state]) => [nodeId, storedNodeState(state)] as const),
      revisions: [...this.revisions],
      domains: [...this.domains.values()],
      placements: [...this.placements],
      holders: [...this.holders].map(([id, h]) => [id, [...h.nodeIds], h.workloadId ?? null] as const),
      sites: this.sites.stored(),
    };
  }

  /** A fold as it was when `checkpoint` was taken, the cluster events up to `position` applied. */
  static restore(checkpoint: ClusterCheckpoint, position: Position): ClusterFold {
    const fold = new ClusterFold();
    for (const [nodeId, state] of checkpoint.nodes) fold.nodes.set(nodeId, restoredNodeState(state));
    for (const [nodeId, revision] of checkpoint.revisions) fold.revisions.set(nodeId, revision);
    for (const domain of checkpoint.domains) fold.domains.set(domain.domainId, domain);
    for (const [domainId, count] of checkpoint.placements) fold.placements.set(domainId, count);
    for (const [allocationId, nodeIds, workloadId] of checkpoint.holders)
      fold.holders.set(allocationId, { nodeIds: new Set(nodeIds), ...(workloadId ? { workloadId } : {}) });
    fold.sites.restore(checkpoint.sites);
    fold.applied.delivered(position);
    return fold;
  }

  /** What this fold has applied, as a decision taken on it now records it (its basis). */
  basis(): DecisionBasisRecord {
    return this.applied.record();
  }

  /** Applies a domain definition (the last one wins). */
  defineDomain(definition: DomainDefinition): void {
    this.domains.set(definition.domainId, definition);
    this.invalidate();
  }

  /** The revision of the last event of a node's stream applied (-1: none). */
  revisionOf(nodeId: string): number {
    return this.revisions.get(nodeId) ?? -1;
  }

  private applyNodeAt(event: NodeEvent, revision: number): void {
    const nodeId = event.data.nodeId;
    if (revision <= this.revisionOf(nodeId)) return;
    this.revisions.set(nodeId, revision);
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

  /** Counts a placement in a domain and its ancestors (round-robin reads these counters). */
  private countPlacement(domainId: string | undefined): void {
    for (let at = domainId, steps = 0; at && steps < 64; steps++) {
      this.placements.set(at, (this.placements.get(at) ?? 0) + 1);
      at = this.domains.get(at)?.parentId ?? undefined;
    }
  }

  /** The scheduling index over the current picture. */
  schedulingIndex(): SchedulingIndex {
    this.index ??= SchedulingIndex.fromSnapshot(this.snapshot());
    return this.index;
  }

  /** The tree and nodes as the scheduler sees them; domains nodes name but nobody defined become roots. */
  snapshot(): ClusterSnapshot {
    return clusterSnapshot({ nodes: this.nodes, domains: this.domains, placements: this.placements });
  }

  /** Online child sites with a summary: the candidates of a federated decision's children tier. */
  childSites(): ChildCandidate[] {
    return this.sites.candidates();
  }

  /**
   * Decides on this fold across sites (`decideFederated`): this hub's tree, its child sites, its peers, in the
   * setup's order; without a setup, on this hub's tree alone.
   */
  decideAcross(request: PlacementRequest, setup?: FederationSetup): FederatedDecision {
    const local = this.schedulingIndex();
    const children = setup?.order.includes('children') ? this.sites.candidates() : [];
    const peers = setup?.order.includes('peers') ? setup.peers : [];
    return decideFederated({ local, children, peers, order: setup?.order ?? ['local'] }, request);
  }

  /**
   * Replays a recorded federated decision on this fold (folded to the decision's basis): the children the basis
   * names, each with the summary of the recorded revision (undefined when the fold holds another: it was scavenged,
   * or the fold is not at the basis), and the recorded peers.
   */
  replayAcross(request: PlacementRequest, basis: FederationBasisRecord): FederatedDecision | undefined {
    const children: ChildCandidate[] = [];
    for (const [siteId, revision] of basis.children) {
      const candidate = this.sites.candidate(siteId, revision);
      if (!candidate) return undefined;
      children.push(candidate);
    }
    const inputs = { local: this.schedulingIndex(), children, peers: basis.peers, order: basis.order };
    return decideFederated(inputs, request);
  }

  /** A node's folded state. */
  node(nodeId: string): NodeState | undefined {
    return this.nodes.get(nodeId);
  }

  /** Every node this fold knows, with its state (deregistered ones included). */
  nodeStates(): IterableIterator<[string, NodeState]> {
    return this.nodes.entries();
  }

  /** The allocations a node holds capacity for, with their workload when this fold saw their reservation. */
  heldOn(nodeId: string): Array<{ allocationId: string; workloadId?: string }> {
    const node = this.nodes.get(nodeId);
    if (!node) return [];
    return [...node.reservations.keys()].map((allocationId) => ({
      allocationId,
      workloadId: this.holders.get(allocationId)?.workloadId,
    }));
  }

  /** The nodes that hold a reservation for `allocationId`. */
  reservationsOf(allocationId: string): string[] {
    return [...(this.holders.get(allocationId)?.nodeIds ?? [])];
  }

  /** Every held allocation whose CapacityReserved this fold saw: its workload and the nodes reserving for it. */
  *heldReservations(): IterableIterator<{ allocationId: string; workloadId: string; nodeIds: string[] }> {
    for (const [allocationId, { nodeIds, workloadId }] of this.holders) {
      if (workloadId) yield { allocationId, workloadId, nodeIds: [...nodeIds] };
    }
  }

  /** Per vendor, the largest device and the most devices on one node, over registered nodes. */
  deviceLimits(): DeviceLimits {
    this.limits ??= deviceLimitsOf(this.nodes.values());
    return this.limits;
  }

  /** Parent of every defined domain (for tree checks). */
  domainParents(): Map<string, string | null> {
    return new Map([...this.domains].map(([id, d]) => [id, d.parentId]));
  }

  /** A domain's definition. */
  domain(domainId: string): DomainDefinition | undefined {
    return this.domains.get(domainId);
  }

  private addHolder(allocationId: string, nodeId: string): Holders {
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

  /** Keeps `holders` in step with one node's reservations after an event other than a reservation's. */
  private trackHolders(nodeId: string, before: NodeState, after: NodeState): void {
    if (before.reservations === after.reservations) return;
    for (const id of before.reservations.keys()) {
      if (!after.reservations.has(id)) this.dropHolder(id, nodeId);
    }
    for (const id of after.reservations.keys()) {
      if (!before.reservations.has(id)) this.addHolder(id, nodeId);
    }
  }

  /** Drops what is derived from the nodes and domains (the index, the device limits) after a structural change. */
  private invalidate(): void {
    this.index = undefined;
    this.limits = undefined;
  }
}
