import {
  RecordedEventOf,
  RecordedHcnEvent,
  inParallel,
  isEventOfTypes,
  quotaStream,
  workloadStream,
} from '@hcn/contracts';
import {
  ACTIVE_ALLOCATION,
  InstanceStatus,
  WorkloadEvent,
  WorkloadState,
  dueInstances,
  workloadDecider,
} from '@hcn/domain';
import { EventStore, Subscription, SubscriptionHealth, superviseSubscription } from '@hcn/eventstore';
import { markAllocationLost } from './mark-lost';
import type { HotStreams } from '../common/hot-streams';
import { CommandContext } from '@hcn/commands';
import type { ClusterView } from '../scheduling/cluster-view';
import type { PlacementService } from '../scheduling/placement.service';
import type { Clock } from '../tokens';

/** Allocation end events: the node's capacity goes back. */
const ENDED = {
  AllocationCompleted: true,
  AllocationFailed: true,
  AllocationStopped: true,
  AllocationLost: true,
};

/** An event of a workload stream, as recorded. */
type RecordedWorkloadEvent = RecordedEventOf<WorkloadEvent['type']>;
/** A node went offline, as recorded. */
type NodeWentOffline = RecordedEventOf<'NodeWentOffline'>;
/** Why the orphan sweep gives something back. */
const ORPHAN_REASON = 'its workload was never recorded';
/** Instance statuses after which nothing happens unless a user acts (restart, update, delete). */
const ENDED_INSTANCE: ReadonlySet<InstanceStatus> = new Set(['completed', 'failed', 'stopped']);

/** What the saga reads: every workload event but the (large) delegation records, and nodes going offline. */
const SAGA_EVENT_TYPES = [
  'WorkloadSubmitted',
  'AllocationPlaced',
  'WorkloadUnschedulable',
  'AllocationStarted',
  'AllocationCompleted',
  'AllocationFailed',
  'AllocationLost',
  'WorkloadStopRequested',
  'AllocationStopRequested',
  'AllocationStopped',
  'WorkloadRestartRequested',
  'WorkloadUpdated',
  'WorkloadDeleted',
  'NodeWentOffline',
];

/** Tunables of the saga. */
export interface WorkloadSagaOptions {
  /** How long another hub waits before scheduling a submission it did not accept (the accepting hub goes first). */
  readonly claimDelayMs: number;
  /** How often due work is looked at. */
  readonly tickMs: number;
  /**
   * How often reservations no workload records are looked for; one seen in two sweeps in a row whose workload
   * stream does not exist (its submission's append never happened: the hub died after reserving) is given back.
   */
  readonly orphanSweepMs: number;
  /** Quota holds whose workload the read models do not know (the sweep checks each against the log). */
  readonly unrecordedHolds?: () => Promise<ReadonlyArray<{ workloadId: string; namespace: string }>>;
}

/**
 * The scheduling saga. It follows every workload stream and node-offline facts in the log, so any hub (also one
 * restarted mid-burst) finds the work left to do: instances waiting for a placement (new, retried by restart
 * policy, unschedulable when capacity appears), capacity of ended allocations to release, allocations on lost nodes,
 * quota of deleted workloads. Races between hubs end at the streams' expected revisions.
 */
export class WorkloadSaga {
  private readonly workloads = new Map<string, WorkloadState>();
  private readonly due = new Map<string, number>();
  /** Workloads being read back from their streams, with the events of them that arrived meanwhile. */
  private readonly reloading = new Map<string, Array<RecordedWorkloadEvent | NodeWentOffline>>();
  /** Workloads with an instance that found no room: tried again whenever capacity appears. */
  private readonly unschedulable = new Set<string>();
  private subscription: Subscription | undefined;
  private timer: NodeJS.Timeout | undefined;
  private sweepTimer: NodeJS.Timeout | undefined;
  /** Allocations whose workload was unknown at the last sweep. */
  private suspects = new Set<string>();
  private running: Promise<void> | undefined;
  private caughtUp = false;

  constructor(
    private readonly store: EventStore,
    private readonly view: ClusterView,
    private readonly placement: PlacementService,
    private readonly clock: Clock,
    private readonly options: WorkloadSagaOptions,
    private readonly hot: HotStreams,
    private readonly health = new SubscriptionHealth(),
  ) {
    view.onCapacity(() => this.retryUnschedulable());
  }

  /** Starts following the log; resolves once caught up. */
  start(): Promise<void> {
    const ready = new Promise<void>((resolve) => {
      this.subscription = superviseSubscription(
        this.store,
        {
          filter: { kind: 'eventTypePrefix', prefixes: SAGA_EVENT_TYPES },
          onEvent: (event) => this.apply(event),
          onCaughtUp: () => {
            this.caughtUp = true;
            resolve();
          },
          onError: (error) => console.error(`[workload-saga] ${error.message}`),
          coalesceMs: 100,
        },
        { name: 'workload-saga', health: this.health, log: (line) => console.error(line) },
      );
    });
    this.timer = setInterval(() => this.kick(), this.options.tickMs);
    this.timer.unref();
    this.sweepTimer = setInterval(() => void this.sweepOrphans(), this.options.orphanSweepMs);
    this.sweepTimer.unref();
    return ready;
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    if (this.sweepTimer) clearInterval(this.sweepTimer);
    await this.subscription?.stop();
    await this.running;
  }

  /** Workloads with something still to do (for tests and metrics). */
  get backlog(): number {
    return this.due.size;
  }

  private context(cause: string, correlation: string): CommandContext {
    return {
      correlationId: correlation,
      causationId: cause,
      actor: { kind: 'system', id: 'scheduler' },
      now: this.clock(),
    };
  }

  private apply(recorded: RecordedHcnEvent): void {
    if (recorded.type === 'NodeWentOffline') {
      for (const waiting of this.reloading.values()) waiting.push(recorded); // checked once they are read back
      return this.nodeLost(recorded);
    }
    if (!recorded.streamId.startsWith('workload-')) return;
    const event = asWorkloadEvent(recorded);
    const workloadId = event.streamId.slice('workload-'.length);
    const waiting = this.reloading.get(workloadId);
    if (waiting) return void waiting.push(event);
    const before = this.workloads.get(workloadId);
    if (!before && event.type !== 'WorkloadSubmitted') return this.reload(workloadId, event);
    const after = workloadDecider.evolve(before ?? workloadDecider.initialState, event);
    this.effects(event, after);
    this.track(workloadId, after, event);
  }

  /** What an event sets off whatever the saga keeps: capacity of ended allocations, quota of deleted workloads. */
  private effects(event: RecordedWorkloadEvent, after: WorkloadState): void {
    if (isEventOfTypes(event, ENDED)) void this.releaseCapacity(event);
    if (event.type === 'WorkloadDeleted') void this.releaseQuota(after, event);
  }

  /**
   * Keeps a workload's state while something may still happen to it, and marks it due when an instance waits.
   * A workload whose instances have all ended (and no allocation holds capacity) is let go: memory stays bounded
   * by the live workloads, and a later event (restart, deletion) reads its stream back (`reload`).
   */
  private track(workloadId: string, state: WorkloadState, event: RecordedWorkloadEvent): void {
    if (waitsForCapacity(state)) this.unschedulable.add(workloadId);
    else this.unschedulable.delete(workloadId);
    if (hasEnded(state)) {
      this.workloads.delete(workloadId);
      return;
    }
    this.workloads.set(workloadId, state);
    const waiting = state.instances.filter((i) => i.status === 'pending');
    if (waiting.length === 0 || state.desired !== 'running' || state.deleted) return;
    const notBefore = Math.min(...waiting.map((i) => (i.notBefore ? Date.parse(i.notBefore) : 0)));
    const claimAt = Date.parse(event.recordedAt) + this.options.claimDelayMs;
    this.markDue(workloadId, Math.max(notBefore, event.type === 'WorkloadSubmitted' ? claimAt : 0));
  }

  /**
   * An event of a workload the saga let go: reads its stream back, then goes on from there. Events of it that
   * arrive meanwhile wait; those the read already covered only set off their effects.
   */
  private reload(workloadId: string, first: RecordedWorkloadEvent): void {
    this.reloading.set(workloadId, [first]);
    void this.hot.workloads
      .load(workloadStream(workloadId))
      .catch((error: Error) => {
        console.error(`[workload-saga] reading ${workloadId} back: ${error.message}`);
        return undefined;
      })
      .then((known) => {
        const queued = this.reloading.get(workloadId) ?? [];
        this.reloading.delete(workloadId);
        let state = known?.state ?? workloadDecider.initialState;
        const offline: NodeWentOffline[] = [];
        const own: RecordedWorkloadEvent[] = [];
        for (const event of queued) {
          if (event.type === 'NodeWentOffline') offline.push(event);
          else if (known && event.revision <= known.revision) this.effects(event, state);
          else {
            state = workloadDecider.evolve(state, event);
            this.effects(event, state);
          }
          if (event.type !== 'NodeWentOffline') own.push(event);
        }
        this.track(workloadId, state, own[own.length - 1]);
        // a node that went offline while the stream was read: its allocations here are lost as well
        for (const event of offline) this.markLost(event, this.activeOn(event, [[workloadId, state]]));
      });
  }

  /** True while the saga keeps this workload's state in memory (tests, metrics). */
  remembers(workloadId: string): boolean {
    return this.workloads.has(workloadId);
  }

  private markDue(workloadId: string, at: number): void {
    const current = this.due.get(workloadId);
    if (current === undefined || at < current) this.due.set(workloadId, at);
  }

  private retryUnschedulable(): void {
    for (const workloadId of this.unschedulable) this.markDue(workloadId, 0);
  }

  /**
   * Gives back node reservations and quota holds whose workload never came to be: unknown to this saga at two
   * sweeps in a row and without a stream (a hub died after holding or reserving, before the submission's append).
   */
  private async sweepOrphans(): Promise<void> {
    if (!this.caughtUp) return;
    const suspects = new Set<string>();
    for (const { allocationId, workloadId, nodeIds } of this.view.heldReservations()) {
      if (this.workloads.has(workloadId)) continue;
      await this.giveBackIfOrphaned(suspects, `reservation:${allocationId}`, workloadId, async (context) => {
        for (const nodeId of nodeIds)
          await this.placement.releaseOn(nodeId, allocationId, ORPHAN_REASON, context);
      });
    }
    const holds = await this.options.unrecordedHolds?.().catch((error: Error) => {
      console.error(`[workload-saga] quota holds: ${error.message}`);
      return [];
    });
    for (const { workloadId, namespace } of holds ?? []) {
      if (this.workloads.has(workloadId)) continue;
      await this.giveBackIfOrphaned(suspects, `hold:${workloadId}`, workloadId, async (context) => {
        const release = { type: 'Release' as const, namespace, workloadId, reason: ORPHAN_REASON };
        await this.hot.quotas.handle(quotaStream(namespace), release, context);
      });
    }
    this.suspects = suspects;
  }

  /**
   * Gives back what `key` holds when it was a suspect at the last sweep too and its workload has no stream;
   * otherwise (first sighting, or a failure) it stays a suspect for the next sweep.
   */
  private async giveBackIfOrphaned(
    suspects: Set<string>,
    key: string,
    workloadId: string,
    giveBack: (context: CommandContext) => Promise<void>,
  ): Promise<void> {
    if (!this.suspects.has(key)) return void suspects.add(key);
    try {
      const recorded = await this.store.readStream(workloadStream(workloadId), { maxCount: 1 });
      if (recorded.length === 0) await giveBack(this.context(`orphan:${key}`, workloadId));
    } catch (error) {
      console.error(`[workload-saga] orphan ${key}: ${(error as Error).message}`);
      suspects.add(key);
    }
  }

  private kick(): void {
    if (this.running || !this.caughtUp) return;
    this.running = this.runDue().finally(() => (this.running = undefined));
  }

  private async runDue(): Promise<void> {
    const now = this.clock().getTime();
    const ready = [...this.due].filter(([, at]) => at <= now).map(([id]) => id);
    const byPriority = ready.sort(
      (a, b) => (this.workloads.get(b)?.spec?.priority ?? 0) - (this.workloads.get(a)?.spec?.priority ?? 0),
    );
    byPriority.forEach((id) => this.due.delete(id));
    // what the log already shows as placed (by this hub's request path or another hub) needs no read
    const work = byPriority.filter((id) => this.hasDueInstances(id, now));
    await inParallel(work, 4, async (workloadId) => {
      try {
        const outcomes = await this.placement.placeDue(
          workloadId,
          this.context(`saga:${workloadId}`, workloadId),
        );
        if (outcomes.outcomes.includes('skipped')) this.markDue(workloadId, now + 1000);
      } catch (error) {
        console.error(`[workload-saga] placing ${workloadId}: ${(error as Error).message}`);
        this.markDue(workloadId, now + 1000);
      }
    });
  }

  private hasDueInstances(workloadId: string, now: number): boolean {
    const state = this.workloads.get(workloadId);
    return state !== undefined && dueInstances(state, now).length > 0;
  }

  private async releaseCapacity(event: RecordedEventOf<keyof typeof ENDED>): Promise<void> {
    const { allocationId, nodeId } = event.data;
    if (!this.view.node(nodeId)?.reservations.has(allocationId)) return;
    await this.placement
      .releaseOn(nodeId, allocationId, event.type, this.context(event.eventId, event.metadata.correlationId))
      .catch((error: Error) => console.error(`[workload-saga] release ${allocationId}: ${error.message}`));
  }

  private async releaseQuota(state: WorkloadState, event: RecordedWorkloadEvent): Promise<void> {
    const spec = state.spec;
    if (!spec || !state.workloadId) return;
    await this.hot.quotas
      .handle(
        quotaStream(spec.namespace),
        {
          type: 'Release',
          namespace: spec.namespace,
          workloadId: state.workloadId,
          reason: 'workload deleted',
        },
        this.context(event.eventId, state.workloadId),
      )
      .catch((error: Error) =>
        console.error(`[workload-saga] quota release ${state.workloadId}: ${error.message}`),
      );
  }

  /** Marks every active allocation on a node that went offline as lost; the restart policy decides what follows. */
  private nodeLost(event: NodeWentOffline): void {
    this.markLost(event, this.activeOn(event, this.workloads));
  }

  /** The active allocations, as [workload id, allocation id], that the offline node of `event` held. */
  private activeOn(
    event: NodeWentOffline,
    workloads: Iterable<[string, WorkloadState]>,
  ): Array<[string, string]> {
    const { nodeId } = event.data;
    const lost: Array<[string, string]> = [];
    for (const [workloadId, state] of workloads) {
      for (const a of Object.values(state.allocations)) {
        if (a.nodeId === nodeId && ACTIVE_ALLOCATION.has(a.status)) lost.push([workloadId, a.allocationId]);
      }
    }
    return lost;
  }

  private markLost(event: NodeWentOffline, lost: Array<[string, string]>): void {
    const { nodeId } = event.data;
    void inParallel(lost, 4, async ([workloadId, allocationId]) => {
      await markAllocationLost(this.store, {
        workloadId,
        allocationId,
        reason: `node ${nodeId} went offline`,
        by: 'scheduler',
        cause: event.eventId,
        now: this.clock(),
        at: event.metadata.occurredAt,
      }).catch((error: Error) => console.error(`[workload-saga] lost ${allocationId}: ${error.message}`));
    });
  }
}

/** A workload that should run and has an instance the scheduler found no room for. */
function waitsForCapacity(state: WorkloadState): boolean {
  return (
    state.desired === 'running' && !state.deleted && state.instances.some((i) => i.status === 'unschedulable')
  );
}

/** Every instance has ended (completed, failed for good, stopped) and no allocation holds capacity. */
function hasEnded(state: WorkloadState): boolean {
  return (
    state.instances.length > 0 &&
    state.instances.every((i) => ENDED_INSTANCE.has(i.status)) &&
    !Object.values(state.allocations).some((a) => ACTIVE_ALLOCATION.has(a.status))
  );
}

/** An event of a workload stream, typed; anything else throws, as the workload decider's evolve would. */
function asWorkloadEvent(event: RecordedHcnEvent): RecordedWorkloadEvent {
  if (isEventOfTypes(event, workloadDecider.eventTypes)) return event;
  throw new Error(`Unhandled case: ${event.type} is not a workload event`);
}
