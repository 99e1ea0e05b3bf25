import type { SiteSummary } from '@hcn/contracts';
import type { ClusterSnapshot, DomainView, NodeView } from '@hcn/scheduling';

/** Most resource tags a summary carries (the first, sorted). */
const MAX_TAGS = 256;

/** What free means on a node: capacity less what is reserved, never below zero; nothing on an offline node. */
function free(node: NodeView, kind: 'cpuMillis' | 'memoryBytes'): number {
  return node.online ? Math.max(0, node.capacity[kind] - node.allocated[kind]) : 0;
}

/** Regions of the tree: each defined domain's own, or the nearest ancestor's. */
function regionsOf(domains: readonly DomainView[]): string[] {
  const byId = new Map(domains.map((d) => [d.domainId, d]));
  const regions = new Set<string>();
  for (const domain of domains) {
    let at: DomainView | undefined = domain;
    for (let hops = 0; at && at.region === null && hops < domains.length; hops++)
      at = at.parentId ? byId.get(at.parentId) : undefined;
    if (at?.region) regions.add(at.region);
  }
  return [...regions].sort();
}

/** Accelerators by vendor and model over online nodes: how many, how many held by no allocation (whole or sliced). */
function acceleratorsOf(nodes: readonly NodeView[]): SiteSummary['accelerators'] {
  const byModel = new Map<string, { vendor: string; model: string; total: number; free: number }>();
  for (const node of nodes) {
    if (!node.online) continue;
    for (const device of node.devices ?? []) {
      const key = `${device.vendor}/${device.model}`;
      const entry = byModel.get(key) ?? { vendor: device.vendor, model: device.model, total: 0, free: 0 };
      entry.total++;
      if (!device.wholeHeld && device.slicedBytes === 0) entry.free++;
      byModel.set(key, entry);
    }
  }
  return [...byModel.keys()].sort().map((key) => byModel.get(key)!);
}

/** Resource tags: the label pairs (`key=value`) and runtimes (`runtime:<name>`) of online nodes. */
function tagsOf(nodes: readonly NodeView[]): string[] {
  const tags = new Set<string>();
  for (const node of nodes) {
    if (!node.online) continue;
    for (const [key, value] of Object.entries(node.labels)) tags.add(`${key}=${value}`.slice(0, 200));
    for (const runtime of node.runtimes ?? ['process']) tags.add(`runtime:${runtime}`);
  }
  return [...tags].sort().slice(0, MAX_TAGS);
}

/** Online and offline nodes per domain (domains without nodes included), by domain id. */
function domainCounts(snapshot: ClusterSnapshot): SiteSummary['domains'] {
  const counts = new Map(snapshot.domains.map((d) => [d.domainId, { online: 0, offline: 0 }]));
  for (const node of snapshot.nodes) {
    const c = counts.get(node.domainId) ?? { online: 0, offline: 0 };
    if (node.online) c.online++;
    else c.offline++;
    counts.set(node.domainId, c);
  }
  return [...counts.keys()].sort().map((domainId) => ({ domainId, ...counts.get(domainId)! }));
}

/**
 * A site's summary for its parent, from the cluster fold's snapshot (pure): per-domain node counts, free and total CPU
 * and memory over online nodes, accelerators by vendor and model, resource tags and regions.
 */
export function siteSummaryOf(snapshot: ClusterSnapshot, seq: number, generatedAt: Date): SiteSummary {
  const online = snapshot.nodes.filter((n) => n.online);
  const total = (kind: 'cpuMillis' | 'memoryBytes') => online.reduce((sum, n) => sum + n.capacity[kind], 0);
  const freeOf = (kind: 'cpuMillis' | 'memoryBytes') => online.reduce((sum, n) => sum + free(n, kind), 0);
  return {
    seq,
    generatedAt: generatedAt.toISOString(),
    domains: domainCounts(snapshot),
    nodes: { online: online.length, offline: snapshot.nodes.length - online.length },
    cpuMillis: { total: total('cpuMillis'), free: freeOf('cpuMillis') },
    memoryBytes: { total: total('memoryBytes'), free: freeOf('memoryBytes') },
    accelerators: acceleratorsOf(snapshot.nodes),
    tags: tagsOf(snapshot.nodes),
    regions: regionsOf(snapshot.domains),
  };
}
