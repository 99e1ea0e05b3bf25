import { WorkloadSpec, deterministicUuid, nodeStream, workloadStream } from '@hcn/contracts';
import {
  DecisionRecord,
  DomainError,
  InstanceView,
  WorkloadEvent,
  WorkloadState,
  fold,
  workloadDecider,
} from '@hcn/domain';
import type { EventStore } from '@hcn/eventstore';
import { Decision, decide } from '@hcn/scheduling';
import { handleOnStream } from '../common/aggregate';
import { CommandContext } from '../common/command-context';
import type { HotStreams } from '../common/cached-aggregate';
import type { HubMetrics } from '../common/metrics';
import type { ClusterView } from './cluster-view';

/** Reservations refused on stale state are retried this many times with fresh state. */
const RESERVE_ATTEMPTS = 5;

/** The allocation id of one attempt of one instance: the same on every hub and after a restart. */
export function allocationIdFor(workloadId: string, instance: number, attempt: number): string {
  return deterministicUuid(`allocation:${workloadId}:${instance}:${attempt}`);
}

/** Result of trying to place one instance. */
export type PlacementOutcome = 'placed' | 'unschedulable' | 'skipped';

/** Turns a scheduler decision into the record the workload decider takes. */
export function toDecisionRecord(
  instance: InstanceView,
  decision: Decision,
  allocationId: string,
): DecisionRecord {
  const hops = decision.hops.map((hop) => ({
    fromScope: hop.scope,
    to: hop.chosen,
    toKind: hop.chosenKind,
    policy: hop.policy,
    candidates: hop.candidates.map((c) => ({ ...c })),
  }));
  const rejections = decision.rejections.map((r) => ({
    scope: r.scope ?? '(root)',
    reason: r.reason,
    detail: r.detail.slice(0, 2000),
    candidates: r.candidates.map((c) => ({ ...c })),
  }));
  const base = { instance: instance.instance, attempt: instance.attempt, hops, rejections };
  if (decision.outcome === 'placed') {
    const domainId = decision.domainPath[decision.domainPath.length - 1];
    return { ...base, outcome: { kind: 'placed', allocationId, nodeId: decision.nodeId, domainId } };
  }
  const detail = Object.entries(decision.reasons)
    .map(([code, n]) => `${code} x${n}`)
    .join(', ');
  return {
    ...base,
    outcome: { kind: 'unschedulable', reasons: decision.reasons, detail: detail.slice(0, 2000) },
  };
}

/**
 * Places one waiting instance: decide on the cluster view, reserve on the node stream with its expected revision
 * (fresh state and a new decision when refused), then append the chain (hops, rejections, placement) to the
 * workload stream with its expected revision. A hub that loses the race gives its reservation back.
 */
export class PlacementService {
  constructor(
    private readonly store: EventStore,
    private readonly view: ClusterView,
    private readonly metrics: HubMetrics,
    private readonly hot: HotStreams,
  ) {}

  /** Places every instance of the workload that waits and is due at `now`. */
  async placeDue(workloadId: string, context: CommandContext): Promise<PlacementOutcome[]> {
    const state = await this.load(workloadId);
    const now = context.now.getTime();
    const due = state.instances.filter(
      (i) =>
        (i.status === 'pending' || i.status === 'unschedulable') &&
        (!i.notBefore || Date.parse(i.notBefore) <= now),
    );
    if (state.deleted || state.desired !== 'running' || !state.spec) return [];
    const outcomes: PlacementOutcome[] = [];
    for (const instance of due)
      outcomes.push(await this.placeInstance(workloadId, state.spec, instance, context));
    return outcomes;
  }

  private async load(workloadId: string): Promise<WorkloadState> {
    const events = await this.store.readStream(workloadStream(workloadId));
    return fold(
      workloadDecider,
      events.map((e) => ({ type: e.type, data: e.data }) as WorkloadEvent),
    );
  }

  private async placeInstance(
    workloadId: string,
    spec: WorkloadSpec,
    instance: InstanceView,
    context: CommandContext,
  ): Promise<PlacementOutcome> {
    const allocationId = allocationIdFor(workloadId, instance.instance, instance.attempt);
    const excluded: string[] = [];
    for (let attempt = 1; ; attempt++) {
      const stop = this.metrics.schedulingSeconds.startTimer();
      const decision = decide(this.view.schedulingIndex(), {
        workloadId,
        instance: instance.instance,
        resources: spec.resources,
        constraints: spec.constraints,
        excludeNodes: excluded,
      });
      stop();
      if (decision.outcome === 'placed') {
        const reserved = await this.reserve(decision.nodeId, workloadId, allocationId, spec, context);
        if (!reserved) {
          excluded.push(decision.nodeId);
          if (attempt < RESERVE_ATTEMPTS) continue;
          return 'skipped'; // the saga tries again on its next pass
        }
      }
      return this.record(workloadId, toDecisionRecord(instance, decision, allocationId), context);
    }
  }

  private async reserve(
    nodeId: string,
    workloadId: string,
    allocationId: string,
    spec: WorkloadSpec,
    context: CommandContext,
  ): Promise<boolean> {
    try {
      const handled = await this.hot.nodes.handle(
        nodeStream(nodeId),
        { type: 'ReserveCapacity', nodeId, allocationId, workloadId, resources: spec.resources },
        context,
      );
      handled.events.forEach((e) => this.view.applyNode(e));
      return true;
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      this.metrics.reservationsRefused.inc({ reason: error.code });
      await this.view.refreshNode(nodeId);
      return false;
    }
  }

  /** Appends the decision; when another hub got there first, gives back a reservation it does not use. */
  private async record(
    workloadId: string,
    record: DecisionRecord,
    context: CommandContext,
  ): Promise<PlacementOutcome> {
    const outcome = record.outcome;
    try {
      await handleOnStream(
        this.store,
        workloadDecider,
        workloadStream(workloadId),
        { type: 'RecordDecision', decision: record },
        context,
      );
    } catch (error) {
      if (!(error instanceof DomainError) || error.code !== 'WORKLOAD.STALE_DECISION') throw error;
      if (outcome.kind === 'placed')
        await this.releaseUnused(workloadId, outcome.allocationId, outcome.nodeId, context);
      return 'skipped';
    }
    if (outcome.kind === 'placed') {
      this.metrics.allocationsPlaced.inc();
      for (const other of this.view
        .reservationsOf(outcome.allocationId)
        .filter((n) => n !== outcome.nodeId)) {
        await this.releaseOn(other, outcome.allocationId, 'superseded by a placement elsewhere', context);
      }
      return 'placed';
    }
    return 'unschedulable';
  }

  private async releaseUnused(
    workloadId: string,
    allocationId: string,
    nodeId: string,
    context: CommandContext,
  ): Promise<void> {
    const state = await this.load(workloadId);
    const placedHere = state.allocations[allocationId]?.nodeId === nodeId;
    if (!placedHere) await this.releaseOn(nodeId, allocationId, 'placement lost to another hub', context);
  }

  /** Gives back the capacity `allocationId` holds on `nodeId` (idempotent). */
  async releaseOn(
    nodeId: string,
    allocationId: string,
    reason: string,
    context: CommandContext,
  ): Promise<void> {
    const handled = await this.hot.nodes.handle(
      nodeStream(nodeId),
      { type: 'ReleaseCapacity', nodeId, allocationId, reason },
      context,
    );
    handled.events.forEach((e) => this.view.applyNode(e));
  }
}
