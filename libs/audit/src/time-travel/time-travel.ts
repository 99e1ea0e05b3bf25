import type { DomainDefinition, QuotaLimits, RecordedEvent, ResourceAmounts } from '@hcn/contracts';
import {
  NodeState,
  QuotaState,
  domainDecider,
  foldRecorded,
  nodeCapacity,
  nodeDecider,
  nodeReserved,
  quotaDecider,
  quotaUsed,
} from '@hcn/domain';
import { eventRef } from '../chain/event-ref';
import type { EventRef } from '../chain/chain.model';

/** The part of a stream that had happened by an instant (occurredAt ≤ at; the stream's order is kept). */
export function prefixAt<E extends RecordedEvent>(events: readonly E[], atMs: number): E[] {
  const end = events.findIndex((e) => Date.parse(e.metadata.occurredAt) > atMs);
  return end < 0 ? [...events] : events.slice(0, end);
}

/** Common part of every "as of" answer. */
interface AsOf {
  readonly at: string;
  /** Events of the stream folded (those that happened by `at`). */
  readonly eventsApplied: number;
  readonly eventsTotal: number;
  readonly lastEvent: EventRef | null;
}

function asOf(all: readonly RecordedEvent[], applied: readonly RecordedEvent[], atMs: number): AsOf {
  const last = applied[applied.length - 1];
  return {
    at: new Date(atMs).toISOString(),
    eventsApplied: applied.length,
    eventsTotal: all.length,
    lastEvent: last ? eventRef(last) : null,
  };
}

/** A node as of an instant. */
export interface NodeAsOf extends AsOf {
  readonly nodeId: string;
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

/** Replays `node-<id>` up to `atMs` with the node decider's evolve. */
export function nodeAsOf(nodeId: string, events: readonly RecordedEvent[], atMs: number): NodeAsOf {
  const applied = prefixAt(events, atMs);
  const state = foldRecorded(nodeDecider, applied);
  return {
    nodeId,
    ...asOf(events, applied, atMs),
    status: state.status,
    draining: state.draining,
    stopRequested: state.stopRequested,
    labels: state.labels,
    domainId: state.registration?.domainId ?? null,
    hostname: state.registration?.hostname ?? null,
    capacity: nodeCapacity(state),
    reserved: nodeReserved(state),
    reservations: state.reservations,
  };
}

/** A domain's definition as of an instant (null before it was defined). */
export interface DomainAsOf extends AsOf {
  readonly domainId: string;
  readonly definition: DomainDefinition | null;
}

/** Replays `domain-<id>` up to `atMs` with the domain decider's evolve. */
export function domainAsOf(domainId: string, events: readonly RecordedEvent[], atMs: number): DomainAsOf {
  const applied = prefixAt(events, atMs);
  return {
    domainId,
    ...asOf(events, applied, atMs),
    definition: foldRecorded(domainDecider, applied).definition,
  };
}

/** A namespace's quota as of an instant. */
export interface QuotaAsOf extends AsOf {
  readonly namespace: string;
  readonly limits: QuotaLimits | null;
  readonly used: ReturnType<typeof quotaUsed>;
  readonly held: QuotaState['held'];
  /** Limits the usage exceeded at that instant (limits lowered below usage). */
  readonly overLimits: string[];
}

/** Replays `quota-<namespace>` up to `atMs` with the quota decider's evolve. */
export function quotaAsOf(namespace: string, events: readonly RecordedEvent[], atMs: number): QuotaAsOf {
  const applied = prefixAt(events, atMs);
  const state = foldRecorded(quotaDecider, applied);
  const used = quotaUsed(state);
  return {
    namespace,
    ...asOf(events, applied, atMs),
    limits: state.limits,
    used,
    held: state.held,
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
