import type {
  DomainDefinition,
  QuotaAmounts,
  QuotaLimits,
  RecordedHcnEvent,
  ResourceAmounts,
} from '@hcn/contracts';
import {
  NodeState,
  domainDecider,
  nodeCapacity,
  nodeDecider,
  nodeReserved,
  quotaDecider,
  quotaUsed,
} from '@hcn/domain';
import type { DomainMembers, NodesAt } from './nodes-at';
import { AsOf, streamAt } from './stream-at';

/** What a node's state shows of it (its own answer and a domain's members share it). */
export interface NodeView {
  readonly status: NodeState['status'];
  readonly draining: boolean;
  readonly stopRequested: boolean;
  readonly labels: Readonly<Record<string, string>>;
  readonly domainId: string | null;
  readonly hostname: string | null;
  readonly capacity: ResourceAmounts;
  readonly reserved: ResourceAmounts;
  readonly reservations: Readonly<Record<string, ResourceAmounts>>;
}

/** The view of a node state folded with the node decider's evolve. */
export function nodeView(state: NodeState): NodeView {
  return {
    status: state.status,
    draining: state.draining,
    stopRequested: state.stopRequested,
    labels: state.labels,
    domainId: state.registration?.domainId ?? null,
    hostname: state.registration?.hostname ?? null,
    capacity: nodeCapacity(state),
    reserved: nodeReserved(state),
    reservations: state.reservations.toRecord(),
  };
}

/** A node as of an instant. */
export interface NodeAsOf extends AsOf, NodeView {
  readonly nodeId: string;
}

/** Replays `node-<id>` up to `atMs` with the node decider's evolve. */
export function nodeAsOf(nodeId: string, events: readonly RecordedHcnEvent[], atMs: number): NodeAsOf {
  const fold = streamAt(nodeDecider, events, atMs);
  return { nodeId, ...fold.asOf(), ...nodeView(fold.state) };
}

/**
 * A domain as of an instant: its definition (null before it was defined) and its members then (nodes registered into
 * it by then and not deregistered or re-registered elsewhere), with their counts, capacity and reservations.
 */
export interface DomainAsOf extends AsOf, DomainMembers {
  readonly domainId: string;
  readonly definition: DomainDefinition | null;
}

/** Replays `domain-<id>` with the domain decider's evolve, and takes its members from the node streams' fold. */
export function domainAsOf(
  domainId: string,
  events: readonly RecordedHcnEvent[],
  nodes: NodesAt,
): DomainAsOf {
  const fold = streamAt(domainDecider, events, nodes.atMs);
  return { domainId, ...fold.asOf(), definition: fold.state.definition, ...nodes.domain(domainId) };
}

/** A namespace's quota as of an instant. */
export interface QuotaAsOf extends AsOf {
  readonly namespace: string;
  readonly limits: QuotaLimits | null;
  readonly used: ReturnType<typeof quotaUsed>;
  readonly held: Readonly<Record<string, QuotaAmounts>>;
  /** Limits the usage exceeded at that instant (limits lowered below usage). */
  readonly overLimits: string[];
}

/** Replays `quota-<namespace>` up to `atMs` with the quota decider's evolve. */
export function quotaAsOf(namespace: string, events: readonly RecordedHcnEvent[], atMs: number): QuotaAsOf {
  const fold = streamAt(quotaDecider, events, atMs);
  const state = fold.state;
  const used = quotaUsed(state);
  return {
    namespace,
    ...fold.asOf(),
    limits: state.limits,
    used,
    held: state.held.toRecord(),
    overLimits: overLimits(state.limits, used),
  };
}

/** The limits `used` exceeds (every kind the limits name; a kind not used counts as 0). */
export function overLimits(limits: QuotaLimits | null, used: Readonly<Record<string, number>>): string[] {
  if (!limits) return [];
  return Object.entries(limits)
    .filter((entry): entry is [string, number] => typeof entry[1] === 'number')
    .filter(([kind, limit]) => (used[kind] ?? 0) > limit)
    .map(([kind, limit]) => `${kind}: ${used[kind]} > limit ${limit}`);
}
