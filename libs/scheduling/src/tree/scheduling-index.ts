import { SchedulingError } from '../errors';
import { applyGrants } from '../devices/device-slot';
import type { ClusterSnapshot, DeviceGrant, DomainView, NodeView, Resources } from '../model';
import { copyResources, fitsIn, freeOf, isValidAmount, RESOURCE_KEYS } from '../resources';
import { buildTree, memberMaxFree, subtreeDeviceMax } from './build';
import type { DomainState, NodeCounts, NodeState } from './states';

/** Read-only aggregates of one domain's subtree (usable nodes: online and not draining). */
export interface DomainSummary {
  readonly domainId: string;
  readonly region: string | null;
  readonly placements: number;
  readonly capacity: Resources;
  readonly free: Resources;
  readonly maxFree: Resources;
  readonly nodes: Readonly<NodeCounts>;
}

/**
 * The scheduler's view of a snapshot: the linked tree with per-subtree aggregates. Build it once, then
 * `reserve`/`release` keep node and aggregates current in O(depth × log width) so many decisions need no rebuild.
 */
export class SchedulingIndex {
  private constructor(
    private readonly domains: Map<string, DomainState>,
    private readonly nodes: Map<string, NodeState>,
    /** The tree's roots, sorted by id. */
    readonly roots: readonly DomainState[],
  ) {}

  /** Builds an index; throws `SchedulingError` (`SNAPSHOT.*`) on an inconsistent snapshot. */
  static fromSnapshot(snapshot: ClusterSnapshot): SchedulingIndex {
    const tree = buildTree(snapshot);
    return new SchedulingIndex(tree.domains, tree.nodes, tree.roots);
  }

  /** The domain's state, for the descent. */
  domainState(domainId: string): DomainState | undefined {
    return this.domains.get(domainId);
  }

  /** Every node's state, in no particular order. */
  allNodes(): IterableIterator<NodeState> {
    return this.nodes.values();
  }

  /** The node's state, for filters and tests. */
  nodeState(nodeId: string): NodeState | undefined {
    return this.nodes.get(nodeId);
  }

  /**
   * Adds `resources` to a node's allocation and counts a placement in every domain above it. Returns false when
   * it did not fit the free amounts: it is applied anyway (the index mirrors the log) and free clamps at zero.
   */
  reserve(nodeId: string, resources: Resources, devices: readonly DeviceGrant[] = []): boolean {
    const node = this.nodeOrThrow(nodeId, resources);
    const fitted = fitsIn(resources, node.free);
    this.apply(node, resources, 1);
    this.applyDevices(node, devices, 1);
    for (let d: DomainState | null = node.home; d; d = d.parent) d.placements++;
    return fitted;
  }

  /**
   * Takes `resources` off a node's allocation (placement counters stay: they count placements so far). Returns
   * false when more was released than allocated; the allocation then clamps at zero.
   */
  release(nodeId: string, resources: Resources, devices: readonly DeviceGrant[] = []): boolean {
    const node = this.nodeOrThrow(nodeId, resources);
    const within = fitsIn(resources, node.allocated);
    this.apply(node, resources, -1);
    this.applyDevices(node, devices, -1);
    return within;
  }

  /** The node as it stands now (allocation included), or undefined. */
  nodeView(nodeId: string): NodeView | undefined {
    const node = this.nodes.get(nodeId);
    return node && { ...node.view, allocated: { ...node.allocated } };
  }

  /** The subtree aggregates of a domain, or undefined. */
  domainSummary(domainId: string): DomainSummary | undefined {
    const d = this.domains.get(domainId);
    if (!d) return undefined;
    const [capacity, free, maxFree] = [d.capacity, d.free, d.maxFree].map(copyResources);
    return {
      domainId,
      region: d.region,
      placements: d.placements,
      capacity,
      free,
      maxFree,
      nodes: { ...d.counts },
    };
  }

  /** The current state as a snapshot (allocations and placement counters included). */
  toSnapshot(): ClusterSnapshot {
    const domains: DomainView[] = [...this.domains.values()].map((d) => ({
      ...d.view,
      placements: d.placements,
    }));
    const nodes = [...this.nodes.keys()].map((id) => this.nodeView(id) as NodeView);
    return { domains, nodes };
  }

  private nodeOrThrow(nodeId: string, resources: Resources): NodeState {
    const node = this.nodes.get(nodeId);
    if (!node) throw new SchedulingError('RESERVE.UNKNOWN_NODE', `unknown node ${nodeId}`, { nodeId });
    if (!isValidAmount(resources)) {
      throw new SchedulingError('RESERVE.INVALID_AMOUNT', 'amounts must be finite and ≥ 0', { resources });
    }
    return node;
  }

  private apply(node: NodeState, amount: Resources, sign: 1 | -1): void {
    const before = node.free;
    for (const key of RESOURCE_KEYS)
      node.allocated[key] = Math.max(0, node.allocated[key] + sign * amount[key]);
    node.free = freeOf(node.capacity, node.allocated);
    if (!node.usable) return;
    for (let d: DomainState | null = node.home; d; d = d.parent) {
      for (const key of RESOURCE_KEYS) d.free[key] += node.free[key] - before[key];
    }
    this.refreshMaxFree(node);
  }

  /** Applies device grants and refreshes the device maxima of the domains above the node. */
  private applyDevices(node: NodeState, grants: readonly DeviceGrant[], sign: 1 | -1): void {
    if (grants.length === 0) return;
    applyGrants(node.devices, grants, sign);
    node.devicesChanged();
    for (let d: DomainState | null = node.home; d; d = d.parent) d.deviceMax = subtreeDeviceMax(d);
  }

  /** Walks up from a node, updating each domain's max trees until nothing changes. */
  private refreshMaxFree(node: NodeState): void {
    for (const key of RESOURCE_KEYS) {
      let member: DomainState | NodeState = node;
      for (let d: DomainState | null = node.home; d; member = d, d = d.parent) {
        const max = d.trees[key].set(member.slot, memberMaxFree(member, key));
        if (max === d.maxFree[key]) break;
        d.maxFree[key] = max;
      }
    }
  }
}
