import { WorkloadSpec, workloadStream } from '@hcn/contracts';
import {
  DecisionRecord,
  DomainError,
  InstanceView,
  WorkloadCommand,
  WorkloadEvent,
  WorkloadState,
  dueInstances,
} from '@hcn/domain';
import type { EventStore } from '@hcn/eventstore';
import { CommandContext, Handled, Known } from '@hcn/commands';
import type { HotStreams } from '../common/hot-streams';
import type { HubMetrics } from '../common/metrics';
import type { ClusterView } from './cluster-view';
import type { PlacementOutcome } from './decision-record';
import { PlacementListener, Reservations } from './reservations';
import { CommittedSubmission, PreparedSubmission, Submissions } from './submissions';

/**
 * Places one waiting instance: decide on the cluster view, reserve through the node engine (the view folds the
 * reservation as appended; a node whose decider refuses it is excluded and a new decision taken), then append the chain (hops, rejections, placement) to the
 * workload stream with its expected revision. A hub that loses the race gives its reservation back. New workloads
 * go through `prepareSubmission` and `commitSubmissions` (submissions.ts); reservations are in reservations.ts,
 * decision records in decision-record.ts.
 */
export class PlacementService {
  private readonly reservations: Reservations;
  private readonly submissions: Submissions;

  constructor(
    store: EventStore,
    view: ClusterView,
    metrics: HubMetrics,
    private readonly hot: HotStreams,
    listener?: PlacementListener,
  ) {
    this.reservations = new Reservations(view, metrics, hot, listener);
    this.submissions = new Submissions(store, metrics, hot, this.reservations);
  }

  /** Places every instance of the workload that waits and is due at `now`; returns the outcomes and the state. */
  async placeDue(
    workloadId: string,
    context: CommandContext,
    known?: Known<WorkloadState>,
  ): Promise<{ outcomes: PlacementOutcome[]; workload: Known<WorkloadState> }> {
    let workload = known ?? (await this.load(workloadId));
    const { state } = workload;
    const due = dueInstances(state, context.now.getTime());
    if (due.length === 0 || !state.spec) return { outcomes: [], workload };
    const outcomes: PlacementOutcome[] = [];
    for (const instance of due) {
      const placed = await this.placeInstance(workloadId, state.spec, instance, workload, context);
      outcomes.push(placed.outcome);
      workload = placed.workload;
    }
    return { outcomes, workload };
  }

  /** A new workload's submission decided and its due instances reserved, nothing appended (Submissions.prepare). */
  prepareSubmission(
    workloadId: string,
    submit: WorkloadCommand & { type: 'Submit' },
    context: CommandContext,
  ): Promise<PreparedSubmission> {
    return this.submissions.prepare(workloadId, submit, context);
  }

  /** Prepared submissions' streams created in one appendMany, outcomes in order (Submissions.commit). */
  commitSubmissions(prepared: readonly PreparedSubmission[]): Promise<CommittedSubmission[]> {
    return this.submissions.commit(prepared);
  }

  /** Gives back what a submission reserved and no workload records (best effort; else the orphan sweep). */
  releasePrepared(p: Pick<PreparedSubmission, 'placed' | 'context'>, reason: string): Promise<void> {
    return this.reservations.releaseAll(p.placed, reason, p.context);
  }

  /** Gives back the capacity `allocationId` holds on `nodeId` (idempotent). */
  releaseOn(nodeId: string, allocationId: string, reason: string, context: CommandContext): Promise<void> {
    return this.reservations.releaseOn(nodeId, allocationId, reason, context);
  }

  private load(workloadId: string): Promise<Known<WorkloadState>> {
    return this.hot.workloads.load(workloadStream(workloadId));
  }

  private async placeInstance(
    workloadId: string,
    spec: WorkloadSpec,
    instance: InstanceView,
    workload: Known<WorkloadState>,
    context: CommandContext,
  ): Promise<{ outcome: PlacementOutcome; workload: Known<WorkloadState> }> {
    const delegatedIn = workload.state.delegatedFrom !== undefined;
    const record = await this.reservations.decideAndReserve(workloadId, spec, instance, context, delegatedIn);
    if (!record) return { outcome: 'skipped', workload }; // the saga tries again on its next pass
    return this.record(workloadId, spec, workload, record, context);
  }

  /** Appends the decision; when another hub got there first, gives back a reservation it does not use. */
  private async record(
    workloadId: string,
    spec: WorkloadSpec,
    workload: Known<WorkloadState>,
    record: DecisionRecord,
    context: CommandContext,
  ): Promise<{ outcome: PlacementOutcome; workload: Known<WorkloadState> }> {
    const outcome = record.outcome;
    let after: Handled<WorkloadEvent, WorkloadState>;
    try {
      // the agent's report follows at once: the engine keeps the state it will be decided on
      after = await this.hot.workloads.handleOnKnown(
        workloadStream(workloadId),
        workload,
        { type: 'RecordDecision', decision: record },
        context,
      );
    } catch (error) {
      if (!(error instanceof DomainError) || error.code !== 'WORKLOAD.STALE_DECISION') throw error;
      if (outcome.kind === 'placed')
        await this.reservations.releaseUnused(workloadId, outcome.allocationId, outcome.nodeId, context);
      return { outcome: 'skipped', workload: await this.load(workloadId) };
    }
    if (outcome.kind === 'delegated') {
      this.reservations.announceDelegated(spec, after); // the delegation sender asks the site
      return { outcome: 'delegated', workload: after };
    }
    if (outcome.kind !== 'placed') return { outcome: 'unschedulable', workload: after };
    await this.reservations.announcePlaced(spec, outcome, after, context);
    return { outcome: 'placed', workload: after };
  }
}
