// Builders for the scheduling specs: small snapshots with readable defaults.
import type { CompiledRequest } from '../constraints';
import { compileRequest } from '../constraints';
import type {
  ClusterSnapshot,
  Constraints,
  DeviceView,
  DomainView,
  NodeView,
  PlacementRequest,
  Resources,
} from '../model';
import { NO_CONSTRAINTS } from '../model';
import { SchedulingIndex } from '../tree/scheduling-index';
import type { DomainState, NodeState } from '../tree/states';

/** One GiB in bytes. */
export const GiB = 2 ** 30;

/** Resources from cores, GiB and accelerators. */
export function res(cores: number, memoryGiB: number, accelerators = 0): Resources {
  return { cpuMillis: cores * 1000, memoryBytes: memoryGiB * GiB, accelerators };
}

/** A domain view with defaults (least-loaded, no region, no placements). */
export function domain(
  domainId: string,
  parentId: string | null,
  over: Partial<DomainView> = {},
): DomainView {
  return { domainId, parentId, region: null, labels: {}, policy: 'least-loaded', placements: 0, ...over };
}

/** A node view with defaults (online, 8 cores, 32 GiB, nothing allocated). */
export function node(nodeId: string, domainId: string, over: Partial<NodeView> = {}): NodeView {
  return {
    nodeId,
    domainId,
    labels: {},
    online: true,
    draining: false,
    capacity: res(8, 32),
    allocated: res(0, 0),
    ...over,
  };
}

/** A request with defaults (workload w-1, instance 0, 1 core, 1 GiB, no constraints). */
export function request(
  over: Partial<PlacementRequest> = {},
  constraints: Partial<Constraints> = {},
): PlacementRequest {
  return {
    workloadId: 'w-1',
    instance: 0,
    resources: res(1, 1),
    ...over,
    constraints: { ...NO_CONSTRAINTS, ...over.constraints, ...constraints },
  };
}

/** An index of a snapshot. */
export function indexOf(domains: DomainView[], nodes: NodeView[]): SchedulingIndex {
  return SchedulingIndex.fromSnapshot({ domains, nodes });
}

/** A compiled request against an index. */
export function compiled(index: SchedulingIndex, req: PlacementRequest = request()): CompiledRequest {
  return compileRequest(
    req,
    (id) => index.domainState(id),
    (id) => index.nodeState(id),
  );
}

/** The state of a node of an index (throws when absent). */
export function nodeIn(index: SchedulingIndex, nodeId: string): NodeState {
  const state = index.nodeState(nodeId);
  if (!state) throw new Error(`no node ${nodeId}`);
  return state;
}

/** The state of a domain of an index (throws when absent). */
export function domainIn(index: SchedulingIndex, domainId: string): DomainState {
  const state = index.domainState(domainId);
  if (!state) throw new Error(`no domain ${domainId}`);
  return state;
}

/**
 * global → regions eu (region eu) and us (region us) → sites eu-a, eu-b, us-a, us-b; two 8-core nodes per site
 * (`<site>-n1`, `<site>-n2`). `over` replaces nodes or domains by id.
 */
export function threeLevel(over: { domains?: DomainView[]; nodes?: NodeView[] } = {}): ClusterSnapshot {
  const domains = [
    domain('global', null),
    domain('eu', 'global', { region: 'eu' }),
    domain('us', 'global', { region: 'us' }),
    ...['eu-a', 'eu-b'].map((id) => domain(id, 'eu')),
    ...['us-a', 'us-b'].map((id) => domain(id, 'us')),
  ];
  const nodes = ['eu-a', 'eu-b', 'us-a', 'us-b'].flatMap((site) => [
    node(`${site}-n1`, site),
    node(`${site}-n2`, site),
  ]);
  const replace = <T>(list: T[], extra: T[] | undefined, id: (t: T) => string) => {
    const byId = new Map(list.map((t) => [id(t), t]));
    for (const t of extra ?? []) byId.set(id(t), t);
    return [...byId.values()];
  };
  return {
    domains: replace(domains, over.domains, (d) => d.domainId),
    nodes: replace(nodes, over.nodes, (n) => n.nodeId),
  };
}

/** A device view with defaults (nvidia A100 80 GiB, 312 TFLOPS, healthy, alone in its island, 1.0 unit, free). */
export function device(index: number, over: Partial<DeviceView> = {}): DeviceView {
  return {
    index,
    vendor: 'nvidia',
    model: 'NVIDIA A100-SXM4-80GB',
    memoryBytes: 80 * GiB,
    tflopsFp16: 312,
    health: 100,
    island: index,
    islandBandwidthGBps: 0,
    computeUnits: 1,
    wholeHeld: false,
    slicedBytes: 0,
    ...over,
  };
}

/** `count` devices from `first` forming one island linked at `bandwidthGBps`. */
export function island(
  first: number,
  count: number,
  bandwidthGBps: number,
  over: Partial<DeviceView> = {},
): DeviceView[] {
  return Array.from({ length: count }, (_, k) =>
    device(first + k, { island: first, islandBandwidthGBps: bandwidthGBps, ...over }),
  );
}
