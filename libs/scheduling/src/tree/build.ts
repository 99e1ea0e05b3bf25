import { SchedulingError } from '../errors';
import type { ClusterSnapshot, Resources } from '../model';
import { isPolicyName } from '../plugins/registry';
import { RESOURCE_KEYS } from '../resources';
import { MaxTree } from './max-tree';
import type { DeviceMax } from '../devices/device-max';
import { mergeDeviceMax } from '../devices/device-max';
import type { Candidate } from './states';
import { byId, DomainState, NodeState } from './states';

/** The linked tree of a snapshot, before any reservation. */
export interface BuiltTree {
  readonly domains: Map<string, DomainState>;
  readonly nodes: Map<string, NodeState>;
  /** The tree's roots, sorted by id (the candidates of the virtual root scope). */
  readonly roots: DomainState[];
}

/** Links domains and nodes, checks the tree and computes every aggregate. */
export function buildTree(snapshot: ClusterSnapshot): BuiltTree {
  const domains = createDomains(snapshot);
  const roots = linkDomains(domains);
  const nodes = createNodes(snapshot, domains);
  const ordered = [...domains.values()].sort((a, b) => b.depth - a.depth || byId(a, b));
  for (const domain of ordered) {
    domain.children.sort(byId);
    domain.nodes.sort(byId);
    domain.members = mergeById(domain.children, domain.nodes);
    domain.members.forEach((member, slot) => (member.slot = slot));
    aggregate(domain);
  }
  roots.sort(byId).forEach((root, slot) => (root.slot = slot));
  return { domains, nodes, roots };
}

function createDomains(snapshot: ClusterSnapshot): Map<string, DomainState> {
  const domains = new Map<string, DomainState>();
  for (const view of snapshot.domains) {
    if (domains.has(view.domainId)) fail('SNAPSHOT.DUPLICATE_DOMAIN', `domain ${view.domainId} listed twice`);
    if (!isPolicyName(view.policy)) {
      fail('SNAPSHOT.UNKNOWN_POLICY', `domain ${view.domainId} names unknown policy ${String(view.policy)}`);
    }
    domains.set(view.domainId, new DomainState(view, null));
  }
  return domains;
}

function linkDomains(domains: Map<string, DomainState>): DomainState[] {
  const roots: DomainState[] = [];
  for (const domain of domains.values()) {
    const parentId = domain.view.parentId;
    if (parentId === null) {
      roots.push(domain);
      continue;
    }
    const parent = domains.get(parentId);
    if (!parent) fail('SNAPSHOT.UNKNOWN_PARENT', `domain ${domain.id} has unknown parent ${parentId}`);
    domain.parent = parent;
    parent.children.push(domain);
  }
  const placed = new Set<DomainState>();
  const visit = (domain: DomainState) => {
    placed.add(domain);
    const parent = domain.parent;
    domain.depth = parent ? parent.depth + 1 : 0;
    domain.chain = parent ? [...parent.chain, domain.id] : [domain.id];
    domain.lineage = new Set(domain.chain);
    domain.region = domain.view.region ?? parent?.region ?? null;
    domain.children.forEach(visit);
  };
  roots.forEach(visit);
  const cyclic = [...domains.values()].filter((d) => !placed.has(d)).map((d) => d.id);
  if (cyclic.length > 0) fail('SNAPSHOT.DOMAIN_CYCLE', `domains in a cycle: ${cyclic.sort().join(', ')}`);
  return roots;
}

function createNodes(snapshot: ClusterSnapshot, domains: Map<string, DomainState>): Map<string, NodeState> {
  const nodes = new Map<string, NodeState>();
  for (const view of snapshot.nodes) {
    if (nodes.has(view.nodeId)) fail('SNAPSHOT.DUPLICATE_NODE', `node ${view.nodeId} listed twice`);
    const home = domains.get(view.domainId);
    if (!home) fail('SNAPSHOT.UNKNOWN_DOMAIN', `node ${view.nodeId} is in unknown domain ${view.domainId}`);
    const node = new NodeState(view, home);
    nodes.set(view.nodeId, node);
    home.nodes.push(node);
  }
  return nodes;
}

function mergeById(children: DomainState[], nodes: NodeState[]): Candidate[] {
  const merged: Candidate[] = [];
  let c = 0;
  let n = 0;
  while (c < children.length || n < nodes.length) {
    if (n >= nodes.length || (c < children.length && children[c].id <= nodes[n].id))
      merged.push(children[c++]);
    else merged.push(nodes[n++]);
  }
  return merged;
}

/** Computes a domain's aggregates from its nodes and its (already aggregated) children. */
function aggregate(domain: DomainState): void {
  const regions = new Set<string | null>([domain.region]);
  for (const node of domain.nodes) {
    domain.counts.total++;
    if (!node.view.online) domain.counts.offline++;
    else if (node.view.draining) domain.counts.draining++;
    else {
      domain.counts.usable++;
      countLabels(domain.labelCounts, node.view.labels, 1);
      addInto(domain.capacity, node.capacity);
      addInto(domain.free, node.free);
    }
  }
  for (const child of domain.children) {
    for (const key of ['total', 'usable', 'offline', 'draining'] as const)
      domain.counts[key] += child.counts[key];
    addInto(domain.capacity, child.capacity);
    addInto(domain.free, child.free);
    child.subtreeRegions.forEach((r) => regions.add(r));
    mergeLabelCounts(domain.labelCounts, child.labelCounts);
  }
  domain.subtreeRegions = regions;
  domain.trees = {
    cpuMillis: new MaxTree(domain.members.map((m) => memberMaxFree(m, 'cpuMillis'))),
    memoryBytes: new MaxTree(domain.members.map((m) => memberMaxFree(m, 'memoryBytes'))),
    accelerators: new MaxTree(domain.members.map((m) => memberMaxFree(m, 'accelerators'))),
  };
  for (const key of RESOURCE_KEYS) domain.maxFree[key] = domain.trees[key].max();
  domain.deviceMax = subtreeDeviceMax(domain);
}

/** A domain's device maxima from its nodes and its (already aggregated) children. */
export function subtreeDeviceMax(domain: DomainState): DeviceMax {
  const max: DeviceMax = new Map();
  for (const node of domain.nodes) if (node.devices.length > 0) mergeDeviceMax(max, node.deviceMax);
  for (const child of domain.children) mergeDeviceMax(max, child.deviceMax);
  return max;
}

/** What a member contributes to its scope's max tree: a usable node's free amount, a child's max free. */
export function memberMaxFree(member: Candidate, key: keyof Resources): number {
  if (member.kind === 'domain') return member.maxFree[key];
  return member.usable ? member.free[key] : 0;
}

type LabelCounts = Map<string, Map<string, number>>;

function bump(counts: LabelCounts, key: string, value: string, n: number): void {
  let values = counts.get(key);
  if (!values) counts.set(key, (values = new Map()));
  values.set(value, (values.get(value) ?? 0) + n);
}

function countLabels(counts: LabelCounts, labels: Readonly<Record<string, string>>, n: number): void {
  for (const key of Object.keys(labels)) bump(counts, key, labels[key], n);
}

function mergeLabelCounts(into: LabelCounts, from: LabelCounts): void {
  for (const [key, values] of from) for (const [value, n] of values) bump(into, key, value, n);
}

function addInto(target: { -readonly [K in keyof Resources]: number }, amount: Resources): void {
  target.cpuMillis += amount.cpuMillis;
  target.memoryBytes += amount.memoryBytes;
  target.accelerators += amount.accelerators;
}

function fail(code: string, message: string): never {
  throw new SchedulingError(code, message);
}
