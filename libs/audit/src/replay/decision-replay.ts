import {
  DecisionBasisRecord,
  FederationBasisRecord,
  Position,
  RecordedHcnEvent,
  comparePositions,
  parsePosition,
  placementNeedsOf,
} from '@hcn/contracts';
import { RecordedBasis } from '@hcn/cluster';
import { foldRecorded, workloadDecider } from '@hcn/domain';
import {
  ClusterSnapshot,
  Decision,
  NODE_EXCLUDED,
  PlacementRequest,
  SchedulingIndex,
  decide,
  compactDecision,
} from '@hcn/scheduling';
import { buildChain } from '../chain/build-chain';
import type { ChainDecision } from '../chain/chain.model';
import { AuditError } from '../errors';
import {
  ComparableDecision,
  comparableOf,
  comparableOfCompact,
  comparableRecord,
  outcomeOf,
  recordedTopK,
} from './comparable';
import { diffJson } from './diff-json';

/** Which recorded decision to replay: the one holding hop `hop` (chain-wide index), or decision `decision`. */
export type DecisionSelector = { readonly hop: number } | { readonly decision: number };

/**
 * What folds cluster events into the scheduler's snapshot. Replays use `ClusterFold` from `@hcn/cluster` (the very fold
 * the scheduler is fed from), so a replay never runs on a second copy of that logic.
 */
export interface ClusterFoldLike {
  apply(event: RecordedHcnEvent): void;
  snapshot(): ClusterSnapshot;
  /**
   * Replays a decision taken across sites (ClusterFold.replayAcross): undefined when a child summary the basis names
   * is not the one the fold holds (scavenged by the summaries' retention).
   */
  replayAcross?(request: PlacementRequest, basis: FederationBasisRecord): { decision: Decision } | undefined;
}

/** What a replay needs besides the cluster: the recorded decision, the request as it was, where it sits. */
export interface DecisionBasis {
  readonly decision: ChainDecision;
  readonly request: PlacementRequest;
  /** Position of the decision's first event in the workload stream. */
  readonly position: Position;
  /** What the deciding hub's view had applied (newer records); absent: the log up to `position`. */
  readonly basis?: DecisionBasisRecord;
}

/** The outcome of a decision replay. */
export interface DecisionReplay {
  readonly workloadId: string;
  readonly decisionIndex: number;
  readonly instance: number;
  readonly attempt: number;
  readonly position: string;
  /** Cluster events folded into the snapshot (after the checkpoint, when it started from one). */
  readonly clusterEvents: number;
  /** The position of the cluster checkpoint the fold started from (absent: the start of the log). */
  readonly checkpoint?: string;
  readonly snapshot: { readonly domains: number; readonly nodes: number };
  readonly request: PlacementRequest;
  readonly recorded: ComparableDecision;
  /** The replay in the shape of the record (verdicts compacted as the record's were). */
  readonly replayed: ComparableDecision;
  /** The replay with every verdict of every scope judged: what a compact record leaves out, derived. */
  readonly derived: ComparableDecision;
  readonly matches: boolean;
  /** Paths where replay and record differ (at most 20). */
  readonly differences: readonly string[];
}

/** Picks the decision to replay from a workload stream and rebuilds the request it was taken for. */
export function decisionBasis(
  events: readonly RecordedHcnEvent[],
  selector: DecisionSelector,
): DecisionBasis {
  const chain = buildChain(events);
  const decision =
    'hop' in selector
      ? chain.decisions.find((d) => d.hops.some((h) => h.seq === selector.hop))
      : chain.decisions[selector.decision];
  if (!decision) {
    const code = 'hop' in selector ? 'AUDIT.HOP_NOT_FOUND' : 'AUDIT.DECISION_NOT_FOUND';
    throw new AuditError(
      code,
      `Workload ${chain.workloadId} has no such ${'hop' in selector ? 'hop' : 'decision'}`,
      {
        ...selector,
      },
    );
  }
  const first = decision.hops[0] ?? decision.rejections[0] ?? decision.outcome.event;
  const before = events.filter((e) => e.revision < first.revision);
  const spec = foldRecorded(workloadDecider, before).spec;
  if (!spec) throw new AuditError('AUDIT.DECISION_NOT_FOUND', 'The decision precedes the submission');
  const request: PlacementRequest = {
    workloadId: chain.workloadId,
    instance: decision.instance,
    resources: spec.resources,
    constraints: spec.constraints,
    excludeNodes: excludedNodes(decision),
    sampleLimit: recordedSampleLimit(decision),
    ...devicesOf(spec),
    ...placementNeedsOf(spec),
  };
  const basis = decision.record?.basis;
  return { decision, request, position: parsePosition(first.position), ...(basis ? { basis } : {}) };
}

/** The device request of the spec, passed the way the hub's placement passes it (absent: none). */
function devicesOf(spec: object): Pick<PlacementRequest, 'devices'> {
  const devices = (spec as { devices?: PlacementRequest['devices'] }).devices;
  return devices ? { devices } : {};
}

/** The sample limit the decision was taken under (0: every member, as decisions recorded before sampling). */
function recordedSampleLimit(decision: ChainDecision): number {
  if (decision.record) return decision.record.sampleLimit ?? 0;
  return (decision.hops[0] ?? decision.rejections[0])?.judging?.sampleLimit ?? 0;
}

/** Nodes the hub excluded for this decision (refused reservations): the filter's verdicts name each one. */
function excludedNodes(decision: ChainDecision): string[] {
  const ids = new Set<string>();
  for (const scope of [...decision.hops, ...decision.rejections]) {
    for (const c of scope.candidates) if (c.reason === NODE_EXCLUDED) ids.add(c.id);
  }
  return [...ids].sort();
}

/**
 * Folds cluster events (in log order) into the snapshot the scheduler saw at a decision. With a recorded basis:
 * every event up to its position and those of the commits it names as applied ahead (the deciding view exactly).
 * Older records: everything before the decision's first event, stopping early at the reservation the decision
 * itself made (the hub decides, reserves, then records the chain). `accept` returns false once the cutoff is
 * reached; feed nothing after that.
 */
export class SnapshotAtDecision {
  private done = false;
  private count = 0;
  private readonly reservation: { allocationId: string; nodeId: string } | undefined;
  /** The recorded basis, parsed once for the whole scan. */
  private readonly recordedBasis: RecordedBasis | undefined;

  constructor(
    private readonly basis: DecisionBasis,
    private readonly fold: ClusterFoldLike,
  ) {
    const o = basis.decision.outcome;
    this.reservation = o.kind === 'placed' ? { allocationId: o.allocationId, nodeId: o.nodeId } : undefined;
    this.recordedBasis = basis.basis && new RecordedBasis(basis.basis);
  }

  /** Applies one cluster event if it precedes the decision; false once the cutoff is reached. */
  accept(event: RecordedHcnEvent): boolean {
    if (this.done) return false;
    const basis = this.recordedBasis;
    if (basis) return this.acceptInBasis(event, basis);
    if (comparePositions(event.position, this.basis.position) >= 0 || this.isOwnReservation(event)) {
      this.done = true;
      return false;
    }
    this.fold.apply(event);
    this.count++;
    return true;
  }

  private acceptInBasis(event: RecordedHcnEvent, basis: RecordedBasis): boolean {
    if (event.position.commit > basis.end) {
      this.done = true;
      return false;
    }
    const nodeId = 'nodeId' in event.data ? String(event.data.nodeId) : undefined;
    if (basis.includes(event.position, nodeId)) {
      this.fold.apply(event);
      this.count++;
    }
    return true;
  }

  /** The scheduler run again: across sites as recorded when the decision was federated, else on the tree. */
  private decideAgain(snapshot: ClusterSnapshot): Decision {
    const federation = this.basis.basis?.federation;
    if (!federation || !this.fold.replayAcross)
      return decide(SchedulingIndex.fromSnapshot(snapshot), this.basis.request);
    const replayed = this.fold.replayAcross(this.basis.request, federation);
    if (replayed) return replayed.decision;
    throw new AuditError(
      'AUDIT.SITE_SUMMARY_GONE',
      'A child site summary this decision was taken on is no longer in the log (summary retention)',
      { children: federation.children.map(([siteId, revision]) => ({ siteId, revision })) },
    );
  }

  private isOwnReservation(event: RecordedHcnEvent): boolean {
    if (event.type !== 'CapacityReserved' || !this.reservation) return false;
    const d = event.data;
    return d.allocationId === this.reservation.allocationId && d.nodeId === this.reservation.nodeId;
  }

  /** Cluster events folded so far. */
  get applied(): number {
    return this.count;
  }

  /** Re-runs the recorded policy on the snapshot and compares the result with the record. */
  replay(): DecisionReplay {
    const snapshot = this.fold.snapshot();
    const decision = this.decideAgain(snapshot);
    const record = this.basis.decision.record;
    const replayed = record
      ? comparableOfCompact(compactDecision(decision, record.topK), outcomeOf(decision))
      : comparableOf(decision, recordedTopK(this.basis.decision));
    const recorded = comparableRecord(this.basis.decision);
    const differences: string[] = [];
    diffJson(recorded, replayed, '', differences, 20);
    const d = this.basis.decision;
    return {
      workloadId: this.basis.request.workloadId,
      decisionIndex: d.index,
      instance: d.instance,
      attempt: d.attempt,
      position: `${this.basis.position.commit}/${this.basis.position.prepare}`,
      clusterEvents: this.count,
      snapshot: { domains: snapshot.domains.length, nodes: snapshot.nodes.length },
      request: this.basis.request,
      recorded,
      replayed,
      derived: comparableOf(decision),
      matches: differences.length === 0,
      differences,
    };
  }
}
