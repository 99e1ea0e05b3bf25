import { RUNTIMES, RecordedHcnEvent, ResourceAmounts, SiteSummary, sitePlace } from '@hcn/contracts';
import type { ClusterSnapshot, DeviceView, DomainView, NodeView } from '@hcn/scheduling';
import type { StoredSite } from './cluster-checkpoint';

/**
 * Event types the site book follows: which children are candidates and their latest summaries, and the delegations
 * made to each since its last summary (what that summary cannot show yet).
 */
export const SITE_EVENT_TYPES = [
  'SiteRegistered',
  'SiteSummaryRecorded',
  'SiteWentOffline',
  'SiteCameOnline',
  'SiteDeregistered',
  'AllocationDelegated',
  'DelegationRejected',
];

/** A tier of sites in a federated decision: the root scope its candidates hang under in their own snapshot. */
export const SITE_TIER_SCOPES = { children: 'federation-children', peers: 'federation-peers' } as const;

/** What a peer offers when nothing is known of it (peers send no summary): judged on constraints only. */
const PEER_CAPACITY = { cpuMillis: 2 ** 40, memoryBytes: 2 ** 60, accelerators: 2 ** 20 };

/** One child site as the log tells it: registered, online, its latest summary and that event's stream revision. */
interface ChildSite {
  online: boolean;
  summary?: SiteSummary;
  revision: number;
  /** Delegations to it since its last summary, not refused: what they hold, by allocation id. */
  readonly pending: Map<string, ResourceAmounts>;
}

/** A child site a decision may delegate to: its latest summary and that summary's stream revision. */
export interface ChildCandidate {
  readonly siteId: string;
  readonly summary: SiteSummary;
  readonly revision: number;
}

/**
 * The child sites of this (parent) site folded from the log: registered and not deregistered, online or not, the
 * latest summary each sent (`sitesummary-<id>`, with its revision) and the delegations to it since (so a burst of
 * delegations does not all go to the room one summary showed). Pure; fed by ClusterFold in log order.
 */
export class SiteBook {
  private readonly sites = new Map<string, ChildSite>();

  /**
   * Applies one site event (SITE_EVENT_TYPES; others are ignored). True when work waiting for room may now fit at a
   * child: its first summary, a summary with more free CPU, memory or accelerators than the one before, its return.
   */
  apply(event: RecordedHcnEvent): boolean {
    switch (event.type) {
      case 'SiteRegistered':
        this.sites.set(event.data.siteId, { online: true, revision: -1, pending: new Map() });
        return false;
      case 'SiteSummaryRecorded': {
        const site = this.sites.get(event.data.siteId);
        if (!site) return false;
        const grew = !site.summary || moreFree(event.data.summary, site.summary);
        Object.assign(site, { summary: event.data.summary, revision: event.revision });
        site.pending.clear(); // a summary made after a delegation was taken counts it
        return grew;
      }
      case 'AllocationDelegated': {
        const site = event.data.relation === 'child' ? this.sites.get(event.data.siteId) : undefined;
        site?.pending.set(event.data.allocationId, event.data.resources);
        return false;
      }
      case 'DelegationRejected': {
        const { siteId, allocationId } = event.data;
        const site = siteId === undefined ? undefined : this.sites.get(siteId);
        return allocationId !== undefined && site?.pending.delete(allocationId) === true;
      }
      case 'SiteWentOffline':
      case 'SiteCameOnline': {
        const site = this.sites.get(event.data.siteId);
        if (site) site.online = event.type === 'SiteCameOnline';
        return site !== undefined && event.type === 'SiteCameOnline';
      }
      case 'SiteDeregistered':
        this.sites.delete(event.data.siteId);
        return false;
      default:
        return false;
    }
  }

  /**
   * Online children with a summary, by site id: the candidates of the children tier, each summary's free CPU and
   * memory less what the delegations since it hold.
   */
  candidates(): ChildCandidate[] {
    return [...this.sites]
      .filter(([, s]) => s.online && s.summary !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([siteId, s]) => ({ siteId, summary: lessPending(s.summary!, s.pending), revision: s.revision }));
  }

  /** The book as a checkpoint stores it, in its own order. */
  stored(): StoredSite[] {
    return [...this.sites].map(([siteId, s]) => ({
      siteId,
      online: s.online,
      ...(s.summary ? { summary: s.summary } : {}),
      revision: s.revision,
      pending: [...s.pending],
    }));
  }

  /** Replaces the book with one a checkpoint stored. */
  restore(sites: readonly StoredSite[]): void {
    this.sites.clear();
    for (const { siteId, online, summary, revision, pending } of sites)
      this.sites.set(siteId, { online, summary, revision, pending: new Map(pending) });
  }

  /** The candidate of a child recorded in a decision's basis, when the book holds that very summary. */
  candidate(siteId: string, revision: number): ChildCandidate | undefined {
    const site = this.sites.get(siteId);
    if (!site?.summary || site.revision !== revision) return undefined;
    return { siteId, summary: lessPending(site.summary, site.pending), revision };
  }
}

/** A summary with the CPU and memory of delegations it does not show yet taken from its free amounts. */
function lessPending(summary: SiteSummary, pending: ReadonlyMap<string, ResourceAmounts>): SiteSummary {
  if (pending.size === 0) return summary;
  let cpuMillis = 0;
  let memoryBytes = 0;
  for (const held of pending.values()) {
    cpuMillis += held.cpuMillis;
    memoryBytes += held.memoryBytes;
  }
  const less = (amount: { total: number; free: number }, held: number) => ({
    total: amount.total,
    free: Math.max(0, amount.free - held),
  });
  return {
    ...summary,
    cpuMillis: less(summary.cpuMillis, cpuMillis),
    memoryBytes: less(summary.memoryBytes, memoryBytes),
  };
}

/** Free accelerators of a summary, over every model. */
function freeAccelerators(summary: SiteSummary): number {
  return summary.accelerators.reduce((sum, a) => sum + a.free, 0);
}

/** Whether `next` has more of something free than `before` (CPU, memory, accelerators). */
function moreFree(next: SiteSummary, before: SiteSummary): boolean {
  return (
    next.cpuMillis.free > before.cpuMillis.free ||
    next.memoryBytes.free > before.memoryBytes.free ||
    freeAccelerators(next) > freeAccelerators(before)
  );
}

/** `key=value` tags as labels (the first value of a key, tags being sorted); `runtime:` tags are not labels. */
function labelsOf(tags: readonly string[]): Record<string, string> {
  const labels: Record<string, string> = {};
  for (const tag of tags) {
    const at = tag.indexOf('=');
    if (at <= 0 || tag.startsWith('runtime:')) continue;
    const key = tag.slice(0, at);
    labels[key] ??= tag.slice(at + 1);
  }
  return labels;
}

/** The runtimes a summary's `runtime:<name>` tags name. */
function runtimesOf(tags: readonly string[]): string[] {
  return tags.filter((t) => t.startsWith('runtime:')).map((t) => t.slice('runtime:'.length));
}

/** A summary's accelerators as devices: one per accelerator, the first `free` of each model not held. */
function devicesOf(summary: SiteSummary): DeviceView[] {
  const devices: DeviceView[] = [];
  for (const a of summary.accelerators) {
    for (let i = 0; i < a.total; i++) {
      const index = devices.length;
      devices.push({
        index,
        vendor: a.vendor,
        model: a.model,
        memoryBytes: 0,
        tflopsFp16: 0,
        health: 100,
        island: index,
        islandBandwidthGBps: 0,
        computeUnits: 0,
        wholeHeld: i >= a.free,
        slicedBytes: 0,
      });
    }
  }
  return devices;
}

/** A child site as one synthetic node `site:<id>`: capacity the summary's totals, allocated total less free. */
function childNode(c: ChildCandidate): NodeView {
  const s = c.summary;
  const devices = devicesOf(s);
  const freeDevices = devices.filter((d) => !d.wholeHeld).length;
  return {
    nodeId: sitePlace(c.siteId),
    domainId: c.siteId,
    labels: labelsOf(s.tags),
    online: true,
    draining: false,
    capacity: {
      cpuMillis: s.cpuMillis.total,
      memoryBytes: s.memoryBytes.total,
      accelerators: devices.length,
    },
    allocated: {
      cpuMillis: s.cpuMillis.total - s.cpuMillis.free,
      memoryBytes: s.memoryBytes.total - s.memoryBytes.free,
      accelerators: devices.length - freeDevices,
    },
    ...(devices.length > 0 ? { devices } : {}),
    runtimes: runtimesOf(s.tags),
  };
}

/** A peer site as one synthetic node `site:<id>`: no summary, so room for anything and every runtime. */
function peerNode(siteId: string): NodeView {
  return {
    nodeId: sitePlace(siteId),
    domainId: siteId,
    labels: {},
    online: true,
    draining: false,
    capacity: PEER_CAPACITY,
    allocated: { cpuMillis: 0, memoryBytes: 0, accelerators: 0 },
    runtimes: [...RUNTIMES],
  };
}

function domainOf(domainId: string, parentId: string | null, region: string | null): DomainView {
  return { domainId, parentId, region, labels: {}, policy: 'least-loaded', placements: 0 };
}

/**
 * The snapshot a tier of sites is judged on: the tier's root scope, one domain per site (its first region, so the
 * region filters apply) holding one synthetic node `site:<id>` (so the capacity, label, runtime and device filters and
 * the scorers apply unchanged).
 */
export function siteTierSnapshot(
  tier: keyof typeof SITE_TIER_SCOPES,
  children: readonly ChildCandidate[],
  peers: readonly string[],
): ClusterSnapshot {
  const root = SITE_TIER_SCOPES[tier];
  if (tier === 'children') {
    const domains = children.map((c) => domainOf(c.siteId, root, c.summary.regions[0] ?? null));
    return { domains: [domainOf(root, null, null), ...domains], nodes: children.map(childNode) };
  }
  const domains = peers.map((p) => domainOf(p, root, null));
  return { domains: [domainOf(root, null, null), ...domains], nodes: peers.map(peerNode) };
}
