import {
  DeviceGrant,
  EventDataOf,
  HcnError,
  NewEvent,
  PlacedDevices,
  WorkloadSpec,
  deterministicUuid,
  nodeStream,
  workloadStream,
} from '@hcn/contracts';
import {
  DecisionRecord,
  DomainError,
  InstanceView,
  WorkloadCommand,
  WorkloadEvent,
  WorkloadState,
  dueInstances,
  workloadDecider,
} from '@hcn/domain';
import { ConcurrencyError, type EventStore } from '@hcn/eventstore';
import { ChosenDevices, DEFAULT_TOP_K, Decision, decide, recordedScopes } from '@hcn/scheduling';
import { CommandContext, Handled, Known, toNewEvents } from '@hcn/commands';
import type { HotStreams } from '../common/hot-streams';
import type { HubMetrics } from '../common/metrics';
import type { ClusterView } from './cluster-view';

/** Decisions tried per instance: a node whose decider refuses the reservation is excluded and the next decided. */
const RESERVE_ATTEMPTS = 5;

/** The allocation id of one attempt of one instance: the same on every hub and after a restart. */
export function allocationIdFor(workloadId: string, instance: number, attempt: number): string {
  return deterministicUuid(`allocation:${workloadId}:${instance}:${attempt}`);
}

/**
 * Told of each placement this hub appended, right after its append: the dispatcher publishes the run command at
 * once instead of waiting for the log to deliver the event back.
 */
export interface PlacementListener {
  placed(commandId: string, placed: EventDataOf<'AllocationPlaced'>, spec: WorkloadSpec): void;
}

/** Result of trying to place one instance. */
export type PlacementOutcome = 'placed' | 'unschedulable' | 'skipped';

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

/** Turns a scheduler decision into the record the workload decider takes (verdicts compacted to `topK`). */
export function toDecisionRecord(
  instance: InstanceView,
  decision: Decision,
  allocationId: string,
  topK = DEFAULT_TOP_K,
): DecisionRecord {
  const { hops, rejections } = recordedScopes(decision, topK);
  const base = { instance: instance.instance, attempt: instance.attempt, hops, rejections };
  if (decision.outcome === 'placed') {
    const domainId = decision.domainPath[decision.domainPath.length - 1];
    const placed = { kind: 'placed' as const, allocationId, nodeId: decision.nodeId, domainId };
    return {
      ...base,
      outcome: decision.devices ? { ...placed, devices: placedDevices(decision.devices) } : placed,
    };
  }
  const detail = Object.entries(decision.reasons)
    .map(([code, n]) => `${code} x${n}`)
    .join(', ');
  return {
    ...base,
    outcome: { kind: 'unschedulable', reasons: decision.reasons, detail: detail.slice(0, 2000) },
  };
}

/** The chosen devices as recorded in AllocationPlaced (grants are implied by vendor, indexes and slice). */
function placedDevices(chosen: ChosenDevices): PlacedDevices {
  const { vendor, indexes, sliceMemoryBytes, oneIsland, bandwidthGBps, computeUnits, scores } = chosen;
  const base = {
    vendor: vendor as PlacedDevices['vendor'],
    indexes: [...indexes],
    oneIsland,
    bandwidthGBps,
    computeUnits,
    scores: { ...scores },
  };
  return sliceMemoryBytes === undefined ? base : { ...base, sliceMemoryBytes };
}

/**
 * Places one waiting instance: decide on the cluster view, reserve through the node engine (the view folds the
 * reservation as appended; a node whose decider refuses it is excluded and a new decision taken), then append the chain (hops, rejections, placement) to the
 * workload stream with its expected revision. A hub that loses the race gives its reservation back.
 */
export class PlacementService {
  constructor(
    private readonly store: EventStore,
    private readonly view: ClusterView,
    private readonly metrics: HubMetrics,
    private readonly hot: HotStreams,
    private readonly listener?: PlacementListener,
  ) {}

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

  /**
   * The first half of a submission: the submission decided and each due instance's capacity reserved, nothing
   * appended to the workload stream yet. Gives back what it reserved when it fails; a crash before the commit
   * leaves reservations no workload records, which the saga's sweep gives back.
   */
  async prepareSubmission(
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
        const record = await this.decideAndReserve(workloadId, submit.spec, instance, context);
        if (!record) {
          outcomes.push('skipped');
          continue;
        }
        const decided = workloadDecider.decide({ type: 'RecordDecision', decision: record }, state);
        state = decided.reduce(workloadDecider.evolve, state);
        events.push(...decided);
        if (record.outcome.kind === 'placed') placed.push(record.outcome);
        outcomes.push(record.outcome.kind === 'placed' ? 'placed' : 'unschedulable');
      }
    } catch (error) {
      await this.releasePrepared({ placed, context }, 'submission failed');
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
  async commitSubmissions(prepared: readonly PreparedSubmission[]): Promise<CommittedSubmission[]> {
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
      for (const placed of p.placed) await this.announcePlaced(p.spec, placed, decided, p.context);
      committed.push({ ok: true, outcomes, workload: { state, revision, events, appended: appended[i] } });
    }
    return committed;
  }

  /** Gives back the reservations of a submission whose append was refused; the error to answer. */
  private async refused(p: PreparedSubmission, error: Error): Promise<Error> {
    if (!(error instanceof ConcurrencyError)) {
      await this.releasePrepared(p, 'submission failed');
      return error;
    }
    for (const placed of p.placed)
      await this.releaseUnused(p.workloadId, placed.allocationId, placed.nodeId, p.context);
    return new HcnError('WORKLOAD.ALREADY_SUBMITTED', `Workload ${p.workloadId} was submitted meanwhile`, {
      workloadId: p.workloadId,
    });
  }

  /** Gives back what a submission reserved and no workload records (best effort; else the orphan sweep). */
  async releasePrepared(p: Pick<PreparedSubmission, 'placed' | 'context'>, reason: string): Promise<void> {
    for (const { nodeId, allocationId } of p.placed)
      await this.releaseOn(nodeId, allocationId, reason, p.context).catch(() => undefined);
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
    const record = await this.decideAndReserve(workloadId, spec, instance, context);
    if (!record) return { outcome: 'skipped', workload }; // the saga tries again on its next pass
    return this.record(workloadId, spec, workload, record, context);
  }

  /**
   * Decides where an instance goes and reserves the capacity on that node's stream (the node excluded and a new decision
   * when refused); the decision record to append, or undefined when every attempt was refused.
   */
  private async decideAndReserve(
    workloadId: string,
    spec: WorkloadSpec,
    instance: InstanceView,
    context: CommandContext,
  ): Promise<DecisionRecord | undefined> {
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
        ...(spec.devices ? { devices: spec.devices } : {}),
        ...(spec.type === 'container' ? { runtime: 'container' } : {}),
      });
      stop();
      if (decision.outcome === 'placed') {
        const grants = decision.devices?.grants as DeviceGrant[] | undefined;
        const reserved = await this.reserve(decision.nodeId, workloadId, allocationId, spec, context, grants);
        if (!reserved) {
          excluded.push(decision.nodeId);
          if (attempt < RESERVE_ATTEMPTS) continue;
          return undefined;
        }
      }
      return toDecisionRecord(instance, decision, allocationId);
    }
  }

  private async reserve(
    nodeId: string,
    workloadId: string,
    allocationId: string,
    spec: WorkloadSpec,
    context: CommandContext,
    devices?: DeviceGrant[],
  ): Promise<boolean> {
    const command = {
      type: 'ReserveCapacity' as const,
      nodeId,
      allocationId,
      workloadId,
      resources: spec.resources,
      ...(devices?.length ? { devices } : {}),
    };
    try {
      await this.hot.nodes.handle(nodeStream(nodeId), command, context); // the view folds it as appended
      return true;
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      this.metrics.reservationsRefused.inc({ reason: error.code });
      return false;
    }
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
        await this.releaseUnused(workloadId, outcome.allocationId, outcome.nodeId, context);
      return { outcome: 'skipped', workload: await this.load(workloadId) };
    }
    if (outcome.kind !== 'placed') return { outcome: 'unschedulable', workload: after };
    await this.announcePlaced(spec, outcome, after, context);
    return { outcome: 'placed', workload: after };
  }

  /**
   * After a placement's append: counts it, hands its run command to the dispatcher at once, and gives back what
   * the same allocation still holds on other nodes (an earlier attempt cut short by a crash).
   */
  private async announcePlaced(
    spec: WorkloadSpec,
    outcome: { allocationId: string; nodeId: string },
    decided: { readonly events: readonly WorkloadEvent[]; readonly appended: readonly NewEvent[] },
    context: CommandContext,
  ): Promise<void> {
    this.metrics.allocationsPlaced.inc();
    // the events as decided, typed, and as appended (same order), with the ids the run command is signed with
    for (const [at, event] of decided.events.entries()) {
      if (event.type !== 'AllocationPlaced' || event.data.allocationId !== outcome.allocationId) continue;
      this.listener?.placed(decided.appended[at].eventId, event.data, spec);
      break;
    }
    for (const other of this.view.reservationsOf(outcome.allocationId).filter((n) => n !== outcome.nodeId)) {
      await this.releaseOn(other, outcome.allocationId, 'superseded by a placement elsewhere', context);
    }
  }

  private async releaseUnused(
    workloadId: string,
    allocationId: string,
    nodeId: string,
    context: CommandContext,
  ): Promise<void> {
    const { state } = await this.load(workloadId);
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
    await this.hot.nodes.handle(
      nodeStream(nodeId),
      { type: 'ReleaseCapacity', nodeId, allocationId, reason },
      context,
    );
  }
}
