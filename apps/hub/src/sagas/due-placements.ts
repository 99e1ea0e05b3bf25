import { Position, comparePositions, inParallel } from '@hcn/contracts';
import { WorkloadState, dueInstances } from '@hcn/domain';
import type { PlacementService } from '../scheduling/placement.service';
import type { Clock } from '../tokens';
import { sagaContext } from './saga-facts';
import { Logger } from '@nestjs/common';

const logger = new Logger('workload-saga');

/**
 * The saga's placement queue: workloads due for a placement attempt (claimed after the accepting hub's head start,
 * retried after a skip, unschedulable ones again when capacity appears), placed by priority, four side by side.
 */
export class DuePlacements {
  private readonly due = new Map<string, number>();
  /** Workloads with an instance that found no room: tried again whenever capacity appears. */
  private readonly unschedulable = new Set<string>();
  /** The log position of the latest event after which capacity may have appeared (see waitsForCapacity). */
  private capacitySeenAt: Position | undefined;
  private running: Promise<void> | undefined;

  constructor(
    private readonly workloads: ReadonlyMap<string, WorkloadState>,
    private readonly placement: PlacementService,
    private readonly clock: Clock,
  ) {}

  /** Workloads with something still to do. */
  get size(): number {
    return this.due.size;
  }

  /** Marks a workload due at `at` (ms), unless it is due earlier already. */
  markDue(workloadId: string, at: number): void {
    const current = this.due.get(workloadId);
    if (current === undefined || at < current) this.due.set(workloadId, at);
  }

  /**
   * Notes whether a workload waits for capacity (tried again by `retryUnschedulable`). `decidedOn`: the log position
   * the decision that left it waiting was taken on. The cluster view and this saga follow the log apart, so capacity
   * the deciding view had not seen may already have been signalled when the saga reads the decision: then the
   * workload is due at once instead of waiting for the next signal, which may never come.
   */
  waitsForCapacity(workloadId: string, waits: boolean, decidedOn?: Position): void {
    if (!waits) return void this.unschedulable.delete(workloadId);
    const newly = !this.unschedulable.has(workloadId);
    this.unschedulable.add(workloadId);
    const missed = this.capacitySeenAt && decidedOn && comparePositions(this.capacitySeenAt, decidedOn) > 0;
    if (newly && missed) this.markDue(workloadId, 0);
  }

  /**
   * Capacity appeared (on `nodeId`, when one node's; after the event at `at`): every workload waiting for it is due
   * now, but a workload pinned to other nodes (`constraints.nodes`, as a task queue's are) cannot use that node's
   * and keeps waiting.
   */
  retryUnschedulable(nodeId?: string, at?: Position): void {
    if (at && (!this.capacitySeenAt || comparePositions(at, this.capacitySeenAt) > 0))
      this.capacitySeenAt = at;
    for (const workloadId of this.unschedulable) {
      const pinned = this.workloads.get(workloadId)?.spec?.constraints.nodes;
      if (nodeId === undefined || !pinned || pinned.includes(nodeId)) this.markDue(workloadId, 0);
    }
  }

  /** Starts a pass over the due workloads unless one runs. */
  kick(): void {
    if (this.running) return;
    this.running = this.runDue().finally(() => (this.running = undefined));
  }

  /** Resolves when the pass in progress (if any) has ended. */
  async settled(): Promise<void> {
    await this.running;
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
          sagaContext(this.clock, `saga:${workloadId}`, workloadId),
        );
        if (outcomes.outcomes.includes('skipped')) this.markDue(workloadId, now + 1000);
      } catch (error) {
        logger.error(`placing ${workloadId}: ${(error as Error).message}`);
        this.markDue(workloadId, now + 1000);
      }
    });
  }

  private hasDueInstances(workloadId: string, now: number): boolean {
    const state = this.workloads.get(workloadId);
    return state !== undefined && dueInstances(state, now).length > 0;
  }
}
