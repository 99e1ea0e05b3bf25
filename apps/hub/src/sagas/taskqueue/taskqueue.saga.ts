import { RecordedHcnEvent, isEventOfTypes } from '@hcn/contracts';
import {
  ACTIVE_ALLOCATION,
  TaskQueueState,
  WAITING_INSTANCE,
  WorkloadState,
  taskQueueDecider,
  workloadDecider,
} from '@hcn/domain';
import { EventStore, Subscription, SubscriptionHealth, superviseSubscription } from '@hcn/eventstore';
import type { ClusterView } from '../../scheduling/cluster-view';
import type { Clock } from '../../tokens';
import type { TaskActions } from './task-actions';
import type { TaskProgress } from './task-progress';
import { eligibleFor } from './task-eligibility';
import { planQueue } from './task-plan';
import { Logger } from '@nestjs/common';

const logger = new Logger('taskqueue-saga');

/** Tunables of the task queue saga. */
export interface TaskQueueSagaOptions {
  /** How often queues marked by an event are planned (and every queue with a running task, each `sweepTicks`). */
  readonly tickMs: number;
}

/** Every so many ticks each running queue is planned even without news (deadlines, retried submissions). */
const SWEEP_TICKS = 5;

/** Which task round a workload was launched for. */
interface Owner {
  readonly queueId: string;
  readonly taskId: string;
  readonly round: number;
}

/**
 * Runs task queues (GridCore's flow): follows `taskqueue-*` streams and the workloads they launch, and for the
 * running task of each queue keeps one workload of `instances` replicas pinned to every eligible node (nodes that
 * join or come back included), stops the instances of tasks the queue moved on from (and of paused or deleted
 * queues), records a task as failed when every instance ended and some failed, and moves the queue on by itself
 * when the task asks (input drained and every instance exited 0, or its deadline passed). Every write goes through
 * the task queue decider or the workload commands, so hubs racing each other end at the streams' revisions.
 */
export class TaskQueueSaga {
  private readonly queues = new Map<string, TaskQueueState>();
  private readonly owners = new Map<string, Owner>();
  private readonly workloads = new Map<string, WorkloadState>();
  private readonly dirty = new Set<string>();
  private subscription: Subscription | undefined;
  private timer: NodeJS.Timeout | undefined;
  private ticks = 0;
  private caughtUp = false;
  private running: Promise<void> = Promise.resolve();

  constructor(
    private readonly store: EventStore,
    private readonly view: ClusterView,
    private readonly actions: TaskActions,
    private readonly progress: TaskProgress,
    private readonly clock: Clock,
    private readonly options: TaskQueueSagaOptions,
    private readonly health = new SubscriptionHealth(),
  ) {
    view.onNodeChange(() => this.markRunning());
  }

  /** Follows the log; resolves once caught up. */
  start(): Promise<void> {
    const ready = new Promise<void>((resolve) => {
      this.subscription = superviseSubscription(
        this.store,
        {
          filter: { kind: 'eventTypePrefix', prefixes: ['Task', 'Workload', 'Allocation'] },
          onEvent: (event) => this.apply(event),
          onCaughtUp: () => {
            this.caughtUp = true;
            resolve();
          },
          onError: (error) => logger.error(error.message),
          coalesceMs: 100,
        },
        { name: 'taskqueue-saga', health: this.health, log: (line) => logger.warn(line) },
      );
    });
    this.timer = setInterval(() => this.tick(), this.options.tickMs);
    this.timer.unref();
    return ready;
  }

  /** Stops following the log and waits for the pass in progress. */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.subscription?.stop();
    await this.running;
  }

  /** A queue's folded state as this saga holds it (for tests). */
  queue(queueId: string): TaskQueueState | undefined {
    return this.queues.get(queueId);
  }

  private apply(event: RecordedHcnEvent): void {
    if (isEventOfTypes(event, taskQueueDecider.eventTypes)) {
      const queueId = event.data.queueId;
      const state = taskQueueDecider.evolve(this.queues.get(queueId) ?? taskQueueDecider.initialState, event);
      this.queues.set(queueId, state);
      if (event.type === 'TaskInstancesLaunched') {
        const { taskId, round } = event.data;
        for (const l of event.data.launches) this.owners.set(l.workloadId, { queueId, taskId, round });
      }
      this.dirty.add(queueId);
      return;
    }
    if (!isEventOfTypes(event, workloadDecider.eventTypes)) return;
    const owner = this.owners.get(event.data.workloadId);
    if (!owner) return;
    const before = this.workloads.get(event.data.workloadId) ?? workloadDecider.initialState;
    this.workloads.set(event.data.workloadId, workloadDecider.evolve(before, event));
    this.dirty.add(owner.queueId);
  }

  /** Marks every queue with a running task (a node joined, left or changed). */
  private markRunning(): void {
    for (const [queueId, state] of this.queues) if (state.current) this.dirty.add(queueId);
  }

  private tick(): void {
    if (!this.caughtUp) return;
    if (++this.ticks % SWEEP_TICKS === 0) this.markRunning();
    if (this.dirty.size === 0) return;
    const queues = [...this.dirty];
    this.dirty.clear();
    this.running = this.running.then(() => this.planAll(queues));
  }

  private async planAll(queueIds: readonly string[]): Promise<void> {
    for (const queueId of queueIds) {
      try {
        await this.planOne(queueId);
      } catch (error) {
        logger.error(`queue ${queueId}: ${(error as Error).message}`);
        this.dirty.add(queueId);
      }
    }
  }

  private async planOne(queueId: string): Promise<void> {
    const queue = this.queues.get(queueId);
    if (!queue?.exists) return;
    const task = queue.current ? queue.tasks.find((t) => t.taskId === queue.current) : undefined;
    const live = (o: Owner) =>
      !queue.paused && !queue.deleted && o.taskId === task?.taskId && o.round === task.round;
    const owned = [...this.owners].filter(([, o]) => o.queueId === queueId);
    const plan = planQueue({
      queue,
      workload: (id) => this.workloads.get(id),
      eligible: task && !queue.paused ? eligibleFor(this.view, task.spec) : [],
      retired: owned.filter(([, o]) => !live(o)).map(([id]) => id),
      nowMs: this.clock().getTime(),
    });
    if (task && !queue.paused) void this.progress.sample(task);
    await this.actions.carryOut(queue, plan);
    this.forgetEnded(queue, owned);
  }

  /** Lets go of workloads of ended tasks once they ended too (memory stays bounded by live work). */
  private forgetEnded(queue: TaskQueueState, owned: ReadonlyArray<[string, Owner]>): void {
    for (const [workloadId, owner] of owned) {
      const task = queue.tasks.find((t) => t.taskId === owner.taskId);
      const state = this.workloads.get(workloadId);
      const over = queue.deleted || (task && task.status !== 'running') || task?.round !== owner.round;
      if (!over || !state || Object.values(state.allocations).some((a) => ACTIVE_ALLOCATION.has(a.status)))
        continue;
      if (state.desired === 'stopped' || !state.instances.some((i) => WAITING_INSTANCE.has(i.status))) {
        this.owners.delete(workloadId);
        this.workloads.delete(workloadId);
        this.actions.forget(workloadId);
      }
    }
  }
}
