import type { DomainDefinition } from '@hcn/contracts';
import { NodeState, nodeCapacity, nodeReserved } from '@hcn/domain';
import { ROOT_POLICY, isPolicyName } from '@hcn/scheduling';
import type { ClusterSnapshot, DomainView, NodeView } from '@hcn/scheduling';
import { deviceViewsOf } from './device-views';

/** Per vendor: the largest device and the most devices on one node. */
export type DeviceLimits = Map<string, { memoryBytes: number; perNode: number }>;

/** What a snapshot is built from: node states, domain definitions and placements counted per domain. */
export interface ClusterParts {
  readonly nodes: ReadonlyMap<string, NodeState>;
  readonly domains: ReadonlyMap<string, DomainDefinition>;
  readonly placements: ReadonlyMap<string, number>;
}

/** The tree and nodes as the scheduler sees them; domains nodes name but nobody defined become roots. */
export function clusterSnapshot({ nodes, domains, placements }: ClusterParts): ClusterSnapshot {
  const views: NodeView[] = [];
  const undefinedDomains = new Set<string>();
  for (const [nodeId, state] of nodes) {
    const registration = state.registration;
    if (!registration || state.status === 'deregistered') continue;
    if (!domains.has(registration.domainId)) undefinedDomains.add(registration.domainId);
    views.push(nodeView(nodeId, state));
  }
  const domainViews: DomainView[] = [...domains.values()].map((d) => domainView(d, domains, placements));
  for (const domainId of undefinedDomains) {
    domainViews.push({
      domainId,
      parentId: null,
      region: null,
      labels: {},
      policy: 'least-loaded',
      placements: placements.get(domainId) ?? 0,
    });
  }
  return { domains: domainViews, nodes: views };
}

/** One registered node as the scheduler sees it. */
function nodeView(nodeId: string, state: NodeState): NodeView {
  const registration = state.registration!;
  const devices = deviceViewsOf(state);
  return {
    nodeId,
    domainId: registration.domainId,
    labels: state.labels,
    online: state.status === 'online',
    draining: state.draining,
    capacity: nodeCapacity(state),
    allocated: nodeReserved(state),
    ...(devices ? { devices } : {}),
    ...(registration.runtimes ? { runtimes: registration.runtimes } : {}),
    ...(registration.modelFrameworks ? { modelFrameworks: registration.modelFrameworks } : {}),
  };
}

function domainView(
  d: DomainDefinition,
  domains: ReadonlyMap<string, DomainDefinition>,
  placements: ReadonlyMap<string, number>,
): DomainView {
  const parentId = d.parentId && domains.has(d.parentId) ? d.parentId : null;
  return {
    domainId: d.domainId,
    parentId,
    region: d.region,
    labels: d.labels,
    // a policy whose scorer left the registry after it was recorded: the root's, rather than no scheduling at all
    policy: isPolicyName(d.policy) ? d.policy : ROOT_POLICY,
    placements: placements.get(d.domainId) ?? 0,
  };
}

/** Per vendor, the largest device and the most devices on one node, over registered nodes. */
export function deviceLimitsOf(nodes: Iterable<NodeState>): DeviceLimits {
  const limits: DeviceLimits = new Map();
  for (const state of nodes) {
    if (state.status === 'deregistered') continue;
    const counts = new Map<string, number>();
    for (const d of state.registration?.devices ?? []) {
      counts.set(d.vendor, (counts.get(d.vendor) ?? 0) + 1);
      const l = limits.get(d.vendor) ?? { memoryBytes: 0, perNode: 0 };
      limits.set(d.vendor, { memoryBytes: Math.max(l.memoryBytes, d.memoryBytes ?? 0), perNode: l.perNode });
    }
    for (const [vendor, n] of counts) limits.get(vendor)!.perNode = Math.max(limits.get(vendor)!.perNode, n);
  }
  return limits;
}
