import { HcnError, WorkloadSpec, workloadStream } from '@hcn/contracts';
import { WorkloadCommand, WorkloadEvent, WorkloadState, dueInstances, workloadDecider } from '@hcn/domain';
import { ConcurrencyError, type EventStore } from '@hcn/eventstore';
import { CommandContext, Handled, toNewEvents } from '@hcn/commands';
import type { HotStreams } from '../common/hot-streams';
import type { HubMetrics } from '../common/metrics';
import type { PlacementOutcome } from './decision-record';
import type { Reservations } from './reservations';

/** A new workload's submission decided and its instances reserved, not yet appended. */
export interface PreparedSubmission {
  readonly workloadId: string;
  readonly spec: WorkloadSpec;
  readonly context: CommandContext;
  readonly events: WorkloadEvent[];
  readonly state: WorkloadState;
  readonly outcomes: PlacementOutcome[];
  readonly placed: ReadonlyArray<{ allocationId: string; nodeId: string }>;
}

/** A submission whose stream was created: the outcome of each instance and the workload as appended. */
export interface SubmittedWorkload {
  readonly ok: true;
  readonly outcomes: PlacementOutcome[];
  readonly workload: Handled<WorkloadEvent, WorkloadState>;
}

/** A prepared submission committed, or why not (its reservations given back). */
export type CommittedSubmission =
  SubmittedWorkload | { readonly ok: false; readonly workloadId: string; readonly error: Error };

/**
 * New workloads in two halves: each submission decided and its instances reserved (prepare), then every stream
 * created with WorkloadSubmitted and the decisions in one appendMany (commit).
 */
export class Submissions {
  constructor(
    private readonly store: EventStore,
    private readonly metrics: HubMetrics,
    private readonly hot: HotStreams,
    private readonly reservations: Reservations,
  ) {}

  /**
   * The first half of a submission: the submission decided and each due instance's capacity reserved, nothing
   * appended to the workload stream yet. Gives back what it reserved when it fails; a crash before the commit
   * leaves reservations no workload records, which the saga's sweep gives back.
   */
  async prepare(
    workloadId: string,
    submit: WorkloadCommand & { type: 'Submit' },
    context: CommandContext,
  ): Promise<PreparedSubmission> {
    const events = workloadDecider.decide(submit, workloadDecider.initialState);
    let state = events.reduce(workloadDecider.evolve, workloadDecider.initialState);
    const outcomes: PlacementOutcome[] = [];
    const placed: Array<{ allocationId: string; nodeId: string }> = [];
    const reserving = this.metrics.submissionStageSeconds.startTimer({ stage: 'reserve' });
    try {
      for (const instance of dueInstances(state, context.now.getTime())) {
        const delegatedIn = submit.delegatedFrom !== undefined;
        const record = await this.reservations.decideAndReserve(
          workloadId,
          submit.spec,
          instance,
          context,
          delegatedIn,
        );
        if (!record) {
          outcomes.push('skipped');
          continue;
        }
        const decided = workloadDecider.decide({ type: 'RecordDecision', decision: record }, state);
        state = decided.reduce(workloadDecider.evolve, state);
        events.push(...decided);
        if (record.outcome.kind === 'placed') placed.push(record.outcome);
        outcomes.push(record.outcome.kind === 'unschedulable' ? 'unschedulable' : record.outcome.kind);
      }
    } catch (error) {
      await this.reservations.releaseAll(placed, 'submission failed', context);
      throw error;
    }
    reserving();
    return { workloadId, spec: submit.spec, context, events, state, outcomes, placed };
  }

  /**
   * The second half: each prepared submission's stream created with its events (one appendMany for many), its
   * run commands handed to the dispatcher. A stream that exists already (a concurrent submission with the same
   * idempotency key won) gives back its reservations and answers WORKLOAD.ALREADY_SUBMITTED; other failures give
   * them back too. Outcomes in the order given.
   */
  async commit(prepared: readonly PreparedSubmission[]): Promise<CommittedSubmission[]> {
    const appending = this.metrics.submissionStageSeconds.startTimer({ stage: 'append' });
    const appended = prepared.map((p) => toNewEvents(p.events, p.context));
    const requests = prepared.map((p, i) => ({
      streamId: workloadStream(p.workloadId),
      events: appended[i],
      expectedRevision: 'no_stream' as const,
    }));
    const results = await this.store.appendMany(requests);
    appending();
    const committed: CommittedSubmission[] = [];
    for (const [i, p] of prepared.entries()) {
      const outcome = results[i];
      if (!outcome.ok) {
        committed.push({ ok: false, workloadId: p.workloadId, error: await this.refused(p, outcome.error) });
        continue;
      }
      const { state, events, outcomes } = p;
      const revision = outcome.result.nextExpectedRevision;
      this.hot.workloads.remember(workloadStream(p.workloadId), { state, revision });
      const decided = { events, appended: appended[i] };
      for (const placed of p.placed)
        await this.reservations.announcePlaced(p.spec, placed, decided, p.context);
      this.reservations.announceDelegated(p.spec, decided);
      committed.push({ ok: true, outcomes, workload: { state, revision, events, appended: appended[i] } });
    }
    return committed;
  }

  /** Gives back the reservations of a submission whose append was refused; the error to answer. */
  private async refused(p: PreparedSubmission, error: Error): Promise<Error> {
    if (!(error instanceof ConcurrencyError)) {
      await this.reservations.releaseAll(p.placed, 'submission failed', p.context);
      return error;
    }
    for (const placed of p.placed)
      await this.reservations.releaseUnused(p.workloadId, placed.allocationId, placed.nodeId, p.context);
    return new HcnError('WORKLOAD.ALREADY_SUBMITTED', `Workload ${p.workloadId} was submitted meanwhile`, {
      workloadId: p.workloadId,
    });
  }
}
