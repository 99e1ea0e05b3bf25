import { RecordedHcnEvent, isEventOfTypes, workloadStream } from '@hcn/contracts';
import { WorkloadState, workloadDecider } from '@hcn/domain';
import { EventStore, Subscription, SubscriptionHealth, superviseSubscription } from '@hcn/eventstore';
import type { HotStreams } from '../common/hot-streams';
import type { ClusterView } from '../scheduling/cluster-view';
import type { PlacementService } from '../scheduling/placement.service';
import type { Clock } from '../tokens';
import { DuePlacements } from './due-placements';
import { activeOn, markLost } from './lost-allocations';
import { OrphanSweep, UnrecordedHolds } from './orphan-sweep';
import { ReleaseEnded } from './release-ended';
import {
  ENDED,
  NodeWentOffline,
  isNodeLeaving,
  RecordedWorkloadEvent,
  SAGA_EVENT_TYPES,
  asWorkloadEvent,
  hasEnded,
  decidedOn,
  waitsForCapacity,
} from './saga-facts';
import { Logger } from '@nestjs/common';
import { SiteChange, isSiteChange } from '../federation/delegation/site-partitions';

const logger = new Logger('workload-saga');

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
  readonly unrecordedHolds?: UnrecordedHolds;
}

/**
 * The scheduling saga. It follows every workload stream and node-offline facts in the log, so any hub (also one
 * restarted mid-burst) finds the work left to do: instances waiting for a placement (new, retried by restart
 * policy, unschedulable when capacity appears: DuePlacements), capacity of ended allocations and quota of deleted
 * workloads to release (ReleaseEnded), allocations on lost nodes (lost-allocations), orphaned reservations and
 * holds (OrphanSweep). Races between hubs end at the streams' expected revisions.
 */
export class WorkloadSaga {
  private readonly workloads = new Map<string, WorkloadState>();
  /** Workloads being read back from their streams, with the events of them that arrived meanwhile. */
  private readonly reloading = new Map<string, Array<RecordedWorkloadEvent | NodeWentOffline>>();
  private readonly due: DuePlacements;
  private readonly release: ReleaseEnded;
  private readonly orphans: OrphanSweep;
  private subscription: Subscription | undefined;
  private timer: NodeJS.Timeout | undefined;
  private sweepTimer: NodeJS.Timeout | undefined;
  private caughtUp = false;
  /** Federation: told of a site going offline or coming back, with the workloads kept (their delegations there). */
  private siteChanged: ((event: SiteChange, workloads: Map<string, WorkloadState>) => void) | undefined;

  constructor(
    private readonly store: EventStore,
    view: ClusterView,
    placement: PlacementService,
    private readonly clock: Clock,
    private readonly options: WorkloadSagaOptions,
    private readonly hot: HotStreams,
    private readonly health = new SubscriptionHealth(),
  ) {
    this.due = new DuePlacements(this.workloads, placement, clock);
    this.release = new ReleaseEnded(view, placement, hot, clock);
    this.orphans = new OrphanSweep(store, view, placement, hot, clock, options.unrecordedHolds);
    view.onCapacity((event) =>
      this.due.retryUnschedulable('nodeId' in event.data ? event.data.nodeId : undefined, event.position),
    );
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
          onError: (error) => logger.error(error.message),
          coalesceMs: 100,
        },
        { name: 'workload-saga', health: this.health, log: (line) => logger.warn(line) },
      );
    });
    this.timer = setInterval(() => this.kick(), this.options.tickMs);
    this.timer.unref();
    this.sweepTimer = setInterval(() => void this.sweepOrphans(), this.options.orphanSweepMs);
    this.sweepTimer.unref();
    return ready;
  }

  /** Stops following the log and waits for the placement pass in progress. */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    if (this.sweepTimer) clearInterval(this.sweepTimer);
    await this.subscription?.stop();
    await this.due.settled();
  }

  /** Federation: what to do when a site this hub delegates to goes offline or comes back (partitions). */
  onSiteChange(handler: (event: SiteChange, workloads: Map<string, WorkloadState>) => void): void {
    this.siteChanged = handler;
  }

  /** Workloads with something still to do (for tests and metrics). */
  get backlog(): number {
    return this.due.size;
  }

  /** True while the saga keeps this workload's state in memory (tests, metrics). */
  remembers(workloadId: string): boolean {
    return this.workloads.has(workloadId);
  }

  private apply(recorded: RecordedHcnEvent): void {
    if (isNodeLeaving(recorded)) {
      for (const waiting of this.reloading.values()) waiting.push(recorded); // checked once they are read back
      return this.nodeLost(recorded);
    }
    if (isSiteChange(recorded)) return this.siteChanged?.(recorded, this.workloads);
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
    if (isEventOfTypes(event, ENDED)) void this.release.releaseCapacity(event);
    if (event.type === 'WorkloadDeleted') void this.release.releaseQuota(after, event);
  }

  /**
   * Keeps a workload's state while something may still happen to it, and marks it due when an instance waits.
   * A workload whose instances have all ended (and no allocation holds capacity) is let go: memory stays bounded
   * by the live workloads, and a later event (restart, deletion) reads its stream back (`reload`).
   */
  private track(workloadId: string, state: WorkloadState, event: RecordedWorkloadEvent): void {
    this.due.waitsForCapacity(workloadId, waitsForCapacity(state), decidedOn(event));
    if (hasEnded(state)) {
      this.workloads.delete(workloadId);
      return;
    }
    this.workloads.set(workloadId, state);
    const waiting = state.instances.filter((i) => i.status === 'pending');
    if (waiting.length === 0 || state.desired !== 'running' || state.deleted) return;
    const notBefore = Math.min(...waiting.map((i) => (i.notBefore ? Date.parse(i.notBefore) : 0)));
    const claimAt = Date.parse(event.recordedAt) + this.options.claimDelayMs;
    this.due.markDue(workloadId, Math.max(notBefore, event.type === 'WorkloadSubmitted' ? claimAt : 0));
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
        logger.error(`reading ${workloadId} back: ${error.message}`);
        return undefined;
      })
      .then((known) => {
        const queued = this.reloading.get(workloadId) ?? [];
        this.reloading.delete(workloadId);
        let state = known?.state ?? workloadDecider.initialState;
        const offline: NodeWentOffline[] = [];
        const own: RecordedWorkloadEvent[] = [];
        for (const event of queued) {
          if (isNodeLeaving(event)) offline.push(event);
          else if (known && event.revision <= known.revision) this.effects(event, state);
          else {
            state = workloadDecider.evolve(state, event);
            this.effects(event, state);
          }
          if (!isNodeLeaving(event)) own.push(event);
        }
        this.track(workloadId, state, own[own.length - 1]);
        // a node that went offline while the stream was read: its allocations here are lost as well
        for (const event of offline)
          markLost(this.store, this.clock, event, activeOn(event, [[workloadId, state]]));
      });
  }

  private sweepOrphans(): Promise<void> {
    if (!this.caughtUp) return Promise.resolve();
    return this.orphans.sweep((workloadId) => this.workloads.has(workloadId));
  }

  private kick(): void {
    if (this.caughtUp) this.due.kick();
  }

  /** Marks every active allocation on a node that went offline as lost; the restart policy decides what follows. */
  private nodeLost(event: NodeWentOffline): void {
    markLost(this.store, this.clock, event, activeOn(event, this.workloads));
  }
}
