import type { DomainView, NodeView, PolicyName, Resources } from '../model';
import type { MutableResources } from '../resources';
import { copyResources, freeOf } from '../resources';
import { fnv1a32 } from '../random';
import type { MaxTree } from './max-tree';
import type { DeviceSlot } from '../devices/device-slot';
import { slotsOf } from '../devices/device-slot';
import type { DeviceMax } from '../devices/device-max';
import { nodeDeviceMax } from '../devices/device-max';
import type { DeviceLayout } from '../devices/device-layout';
import type { DeviceOutcome } from '../devices/choose-devices';
import { layoutOf } from '../devices/device-layout';

/** A node inside a `SchedulingIndex`: its view plus the live allocation. */
export class NodeState {
  /** Discriminant shared with `DomainState`. */
  readonly kind = 'node' as const;
  /** The node id. */
  readonly id: string;
  /** FNV-1a of the id, for seeded draws. */
  readonly idHash: number;
  /** Online and not draining: counts in aggregates. */
  readonly usable: boolean;
  /** Allocated now (snapshot plus reservations minus releases). */
  readonly allocated: MutableResources;
  /** Free now: capacity - allocated, never below zero. */
  free: Resources;
  /** Position among the members of its domain. */
  slot = 0;
  /** The node's devices and what is held on them now. */
  readonly devices: DeviceSlot[];
  private cachedDeviceMax: DeviceMax | undefined;
  private cachedLayout: DeviceLayout | undefined;
  /** The decision (its compiled request) `outcome` was computed for: a per-decision cache without a map. */
  outcomeFor: object | undefined;
  /** The device choice or rejection for `outcomeFor`. */
  outcome: DeviceOutcome | undefined;

  constructor(
    /** The node as in the snapshot. */
    readonly view: NodeView,
    /** The domain the node is directly in. */
    readonly home: DomainState,
  ) {
    this.id = view.nodeId;
    this.idHash = fnv1a32(view.nodeId);
    this.usable = view.online && !view.draining;
    this.allocated = copyResources(view.allocated);
    this.free = freeOf(view.capacity, view.allocated);
    this.devices = slotsOf(view.devices);
  }

  /** The node's capacity. */
  get capacity(): Resources {
    return this.view.capacity;
  }

  /** Per vendor, the node's free whole devices and the most slice memory on one device (cached). */
  get deviceMax(): DeviceMax {
    return (this.cachedDeviceMax ??= nodeDeviceMax(this.devices, this.usable));
  }

  /** The node's devices grouped by vendor and island (static, built once). */
  get deviceLayout(): DeviceLayout {
    return (this.cachedLayout ??= layoutOf(this.devices));
  }

  /** Drops the cached device maxima after the node's devices changed. */
  devicesChanged(): void {
    this.cachedDeviceMax = undefined;
  }
}

/** Counts of nodes in a subtree by state. */
export interface NodeCounts {
  total: number;
  usable: number;
  offline: number;
  draining: number;
}

/** A domain inside a `SchedulingIndex`: tree links, inherited region, subtree aggregates. */
export class DomainState {
  /** Discriminant shared with `NodeState`. */
  readonly kind = 'domain' as const;
  /** The domain id. */
  readonly id: string;
  /** FNV-1a of the id, for seeded draws. */
  readonly idHash: number;
  /** The domain's scheduling policy. */
  readonly policy: PolicyName;
  /** Allocations placed so far in this subtree. */
  placements: number;
  /** Depth below the tree's roots (roots: 0). */
  depth = 0;
  /** Ancestor ids from the root down to this domain (inclusive). */
  chain: readonly string[] = [];
  /** `chain` as a set. */
  lineage: ReadonlySet<string> = new Set();
  /** Own region or the nearest ancestor's. */
  region: string | null = null;
  /** Effective regions of every domain of the subtree (itself included). */
  subtreeRegions: ReadonlySet<string | null> = new Set();
  /** Child domains, sorted by id. */
  children: DomainState[] = [];
  /** Nodes directly in this domain, sorted by id. */
  nodes: NodeState[] = [];
  /** Children and nodes merged in id order: the candidates when this domain is the scope. */
  members: Candidate[] = [];
  /** Position among the members of the parent (or among the roots). */
  slot = 0;
  /** Summed capacity of the usable nodes of the subtree. */
  capacity: MutableResources = copyResources({ cpuMillis: 0, memoryBytes: 0, accelerators: 0 });
  /** Summed free amounts of the usable nodes of the subtree. */
  free: MutableResources = copyResources({ cpuMillis: 0, memoryBytes: 0, accelerators: 0 });
  /** Per resource, the largest free amount of any single usable node of the subtree. */
  maxFree: MutableResources = copyResources({ cpuMillis: 0, memoryBytes: 0, accelerators: 0 });
  /** Per resource, a max tree over `members` (node free / child maxFree). */
  trees!: Record<keyof Resources, MaxTree>;
  /** Per label key and value, how many usable nodes of the subtree carry it. */
  labelCounts: Map<string, Map<string, number>> = new Map();
  /** Node counts of the subtree. */
  counts: NodeCounts = { total: 0, usable: 0, offline: 0, draining: 0 };
  /** Per vendor, the most free devices on one usable node of the subtree and the most slice memory on one device. */
  deviceMax: DeviceMax = new Map();

  constructor(
    /** The domain as in the snapshot. */
    readonly view: DomainView,
    /** The parent, or null for a root. */
    public parent: DomainState | null,
  ) {
    this.id = view.domainId;
    this.idHash = fnv1a32(view.domainId);
    this.policy = view.policy;
    this.placements = view.placements;
  }

  /** A domain is its own home (the domain used for locality and affinity). */
  get home(): DomainState {
    return this;
  }
}

/** A candidate at a scope: a child domain or a node directly in the scope. */
export type Candidate = DomainState | NodeState;

/** Orders ids by UTF-16 code units (locale-independent). */
export function byId(a: { id: string }, b: { id: string }): number {
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}
