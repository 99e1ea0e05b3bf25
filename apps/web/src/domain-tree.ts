// The domain tree of the overview: each domain with the figures of its whole subtree (its own nodes and those
// of the domains below it).
import type { Domain } from './api';

/** A domain of the tree with its subtree's figures, and the domains below it. */
export interface TreeNode {
  domain: Domain;
  children: TreeNode[];
}

type Accelerators = { total: number; allocated: number };

/** Accelerators of a domain: the hub's figures when it reports them, else its online nodes' devices. */
function accelerators(d: Domain, online: ReadonlyMap<string, number>): Accelerators {
  const api = d.capacity.accelerators;
  return {
    total: api?.total ?? online.get(d.domainId) ?? 0,
    allocated: api?.allocated ?? d.reserved.accelerators,
  };
}

const pair = (a: { total: number; available: number }, b: { total: number; available: number }) => ({
  total: a.total + b.total,
  available: a.available + b.available,
});

/** `a` with `b`'s counts, capacity and reservations added. */
function add(a: Domain, b: Domain): Domain {
  const acc = (d: Domain): Accelerators => d.capacity.accelerators as Accelerators;
  return {
    ...a,
    nodes: {
      online: a.nodes.online + b.nodes.online,
      offline: a.nodes.offline + b.nodes.offline,
      draining: a.nodes.draining + b.nodes.draining,
    },
    capacity: {
      cpuCores: pair(a.capacity.cpuCores, b.capacity.cpuCores),
      memoryBytes: pair(a.capacity.memoryBytes, b.capacity.memoryBytes),
      accelerators: { total: acc(a).total + acc(b).total, allocated: acc(a).allocated + acc(b).allocated },
    },
    reserved: {
      cpuMillis: a.reserved.cpuMillis + b.reserved.cpuMillis,
      memoryBytes: a.reserved.memoryBytes + b.reserved.memoryBytes,
      accelerators: a.reserved.accelerators + b.reserved.accelerators,
    },
  };
}

function rollUp(node: TreeNode): TreeNode {
  const children = node.children.map(rollUp);
  return { domain: children.map((c) => c.domain).reduce(add, node.domain), children };
}

/** The domains as a tree (by their definitions' parents), each with its subtree's figures. */
export function domainTree(domains: readonly Domain[], online: ReadonlyMap<string, number>): TreeNode[] {
  const nodes = new Map<string, TreeNode>(
    domains.map((d) => [
      d.domainId,
      { domain: { ...d, capacity: { ...d.capacity, accelerators: accelerators(d, online) } }, children: [] },
    ]),
  );
  const roots: TreeNode[] = [];
  for (const n of nodes.values()) {
    const parentId = n.domain.definition?.parentId;
    const parent = parentId ? nodes.get(parentId) : undefined;
    (parent ? parent.children : roots).push(n);
  }
  return roots.map(rollUp);
}
