import type { Period } from './period';
import { hoursWithin } from './period';

interface NodeTrack {
  domainId: string;
  trackedSince: number | null;
  onlineSince: number | null;
  trackedHours: number;
  onlineHours: number;
}

/** Per-domain totals of node availability. */
export interface DomainAvailability {
  readonly nodes: number;
  readonly trackedHours: number;
  readonly onlineHours: number;
}

/**
 * Node availability from lifecycle facts: a node is tracked from its registration to its deregistration and
 * online between registration / NodeCameOnline and NodeWentOffline. Hours count only within the period.
 */
export class Availability {
  private readonly nodes = new Map<string, NodeTrack>();
  private period: Period = { fromMs: 0, toMs: 0 };

  /** Sets the period hours are counted in (call before the first event). */
  within(period: Period): void {
    this.period = period;
  }

  /** A node registered (again): tracked and online from `at`. */
  register(nodeId: string, domainId: string, at: number): void {
    const n = this.nodes.get(nodeId) ?? {
      domainId,
      trackedSince: null,
      onlineSince: null,
      trackedHours: 0,
      onlineHours: 0,
    };
    n.domainId = domainId;
    n.trackedSince ??= at;
    n.onlineSince ??= at;
    this.nodes.set(nodeId, n);
  }

  /** Applies an offline, online or deregistration fact. */
  apply(
    type: 'NodeWentOffline' | 'NodeCameOnline' | 'NodeDeregistered',
    d: { nodeId: string },
    at: number,
  ): void {
    const n = this.nodes.get(d.nodeId);
    if (!n) return;
    if (type === 'NodeCameOnline') {
      n.onlineSince ??= at;
      return;
    }
    this.closeOnline(n, at);
    if (type === 'NodeDeregistered' && n.trackedSince !== null) {
      n.trackedHours += hoursWithin(this.period, n.trackedSince, at);
      n.trackedSince = null;
    }
  }

  private closeOnline(n: NodeTrack, at: number): void {
    if (n.onlineSince === null) return;
    n.onlineHours += hoursWithin(this.period, n.onlineSince, at);
    n.onlineSince = null;
  }

  /** Closes open intervals at the horizon. */
  close(horizonMs: number): void {
    for (const n of this.nodes.values()) {
      this.closeOnline(n, horizonMs);
      if (n.trackedSince !== null) n.trackedHours += hoursWithin(this.period, n.trackedSince, horizonMs);
      n.trackedSince = null;
    }
  }

  /** Totals per domain, for nodes tracked at some time within the period. */
  perDomain(): Map<string, DomainAvailability> {
    const out = new Map<string, DomainAvailability>();
    for (const n of this.nodes.values()) {
      if (n.trackedHours <= 0) continue;
      const t = out.get(n.domainId) ?? { nodes: 0, trackedHours: 0, onlineHours: 0 };
      out.set(n.domainId, {
        nodes: t.nodes + 1,
        trackedHours: t.trackedHours + n.trackedHours,
        onlineHours: t.onlineHours + n.onlineHours,
      });
    }
    return out;
  }
}
