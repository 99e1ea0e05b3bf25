import { HcnError, TaskLaunch, taskQueueStream, workloadSpecSchema } from '@hcn/contracts';
import { TaskQueueCommand, TaskQueueState, TaskView, taskOf, taskWorkloadSpec } from '@hcn/domain';
import { requestContext } from '@hcn/commands';
import { EVENT_STORE, EventStore } from '@hcn/eventstore';
import { QUEUE_METER, QueueMeter } from '@hcn/queue-meter';
import { Inject, Injectable } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import type { Principal } from '../../auth/principal';
import {
  StopWorkloadsCommand,
  StopWorkloadsResult,
} from '../../commands/stop-workloads/stop-workloads.command';
import { SubmitWorkloadsCommand } from '../../commands/submit-workloads/submit-workloads.command';
import { taskQueueEngine } from '../../commands/taskqueue-command';
import type { HubConfig } from '../../config';
import { CLOCK, Clock, HUB_CONFIG } from '../../tokens';
import { openRedisUrl } from '../../commands/add-task/seal-redis-urls';
import { launchKey } from './task-plan';
import type { TaskPlan } from './task-plan';

/** Most launches one TaskInstancesLaunched event records. */
const LAUNCHES_PER_EVENT = 500;
/** A submission or stop asked for is not asked again for this long (its event may still be on its way). */
const REPEAT_AFTER_MS = 15_000;
/**
 * Stops per StopWorkloadsCommand (one read per workload, one append for all): one StopWorkloadCommand per
 * workload, even 16 side by side, was the largest part of a `next` on 1,000 nodes (bench/taskqueue-fanout), and
 * the new task's instances wait for the capacity the old ones give back.
 */
const STOPS_PER_COMMAND = 250;

/** Who the saga acts as when it submits and stops a queue's workloads. */
const SAGA_PRINCIPAL: Principal = { name: 'taskqueue-saga', role: 'admin', namespaces: ['*'] };

/** The last thing that went wrong for a queue (shown with it). */
export interface QueueProblem {
  readonly at: string;
  readonly message: string;
}

/** Carries out a queue's plan: retired workloads stopped, launches recorded then submitted, outcomes recorded. */
@Injectable()
export class TaskActions {
  private readonly engine: ReturnType<typeof taskQueueEngine>;
  /** When each workload was last submitted. */
  private readonly submitted = new Map<string, number>();
  /** When each workload was last asked to stop. */
  private readonly stopAsked = new Map<string, number>();
  private readonly problems = new Map<string, QueueProblem>();

  constructor(
    @Inject(EVENT_STORE) store: EventStore,
    private readonly commands: CommandBus,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(HUB_CONFIG) private readonly config: HubConfig,
    @Inject(QUEUE_METER) private readonly meter: QueueMeter,
  ) {
    this.engine = taskQueueEngine(store);
  }

  /** Lets go of what was asked about a workload the saga no longer follows (memory stays bounded). */
  forget(workloadId: string): void {
    this.submitted.delete(workloadId);
    this.stopAsked.delete(workloadId);
  }

  /** The last problem of a queue, if any. */
  problemOf(queueId: string): QueueProblem | undefined {
    return this.problems.get(queueId);
  }

  /** Does what the plan says; failures are remembered as the queue's problem and retried on a later pass. */
  async carryOut(queue: TaskQueueState, plan: TaskPlan): Promise<void> {
    const queueId = queue.queueId as string;
    const task = taskOf(queue, queue.current);
    try {
      // stops first: the new task's instances wait for the capacity the old ones give back on the same nodes
      await this.stop(
        plan.stop.filter((id) => this.due(this.stopAsked, id)),
        queue,
      );
      if (task && plan.launch.length > 0) await this.recordLaunches(queue, task, plan.launch);
      if (task)
        await this.submit(queue, task, [
          ...plan.launch,
          ...plan.submit.filter((l) => this.due(this.submitted, l.workloadId)),
        ]);
      if (task && plan.fail)
        await this.decide(queueId, {
          type: 'RecordTaskFailed',
          taskId: task.taskId,
          round: task.round,
          reason: plan.fail,
          at: this.now(),
        });
      else if (task && plan.deadlinePassed)
        await this.advance(queueId, task, 'deadline', 'the task reached its deadline');
      else if (task && plan.drained && task.spec.autoAdvance && (await this.inputDrained(task)))
        await this.advance(queueId, task, 'auto', 'input queue empty and every instance exited 0');
    } catch (error) {
      this.problems.set(queueId, { at: this.now(), message: (error as Error).message });
      throw error;
    }
  }

  private now(): string {
    return this.clock().toISOString();
  }

  private due(asked: ReadonlyMap<string, number>, workloadId: string): boolean {
    const last = asked.get(workloadId);
    return last === undefined || this.clock().getTime() - last >= REPEAT_AFTER_MS;
  }

  private async decide(queueId: string, command: TaskQueueCommand): Promise<void> {
    const context = requestContext({ kind: 'system', id: 'taskqueue' }, this.clock());
    try {
      await this.engine.handle(taskQueueStream(queueId), command, context);
    } catch (error) {
      if (error instanceof HcnError && error.code === 'TASKQUEUE.STALE') return; // another hub got there first
      throw error;
    }
  }

  private async recordLaunches(queue: TaskQueueState, task: TaskView, launches: readonly TaskLaunch[]) {
    for (let at = 0; at < launches.length; at += LAUNCHES_PER_EVENT) {
      const chunk = launches.slice(at, at + LAUNCHES_PER_EVENT);
      await this.decide(queue.queueId as string, {
        type: 'RecordLaunches',
        taskId: task.taskId,
        round: task.round,
        launches: chunk,
      });
    }
  }

  /** Submits each launch's workload under its launch key (a repeat answers the existing one), in batches. */
  private async submit(
    queue: TaskQueueState,
    task: TaskView,
    launches: readonly TaskLaunch[],
  ): Promise<void> {
    const definition = queue.definition;
    if (!definition || launches.length === 0) return;
    const queueId = queue.queueId as string;
    let batch: TaskLaunch[] = [];
    let instances = 0;
    const flush = async () => {
      if (batch.length === 0) return;
      const items = batch.map((l) => ({
        spec: workloadSpecSchema.parse(taskWorkloadSpec(definition, task.spec, l.nodeId, l.instances)),
        idempotencyKey: launchKey(queueId, task.taskId, task.round, l.nodeId, l.launch),
      }));
      batch.forEach((l) => this.submitted.set(l.workloadId, this.clock().getTime()));
      const principal = { ...SAGA_PRINCIPAL, namespaces: [definition.namespace] };
      await this.commands.execute(new SubmitWorkloadsCommand(principal, items));
      batch = [];
      instances = 0;
    };
    for (const launch of launches) {
      if (instances + launch.instances > this.config.maxInstancesPerRequest) await flush();
      batch.push(launch);
      instances += launch.instances;
    }
    await flush();
  }

  private async stop(workloadIds: readonly string[], queue: TaskQueueState): Promise<void> {
    const reason = queue.deleted
      ? 'task queue deleted'
      : queue.paused
        ? 'task queue paused'
        : 'task queue moved on';
    let failure: unknown;
    for (let at = 0; at < workloadIds.length; at += STOPS_PER_COMMAND) {
      const batch = workloadIds.slice(at, at + STOPS_PER_COMMAND);
      batch.forEach((workloadId) => this.stopAsked.set(workloadId, this.clock().getTime()));
      const result: StopWorkloadsResult = await this.commands.execute(
        new StopWorkloadsCommand(SAGA_PRINCIPAL, batch, reason),
      );
      // a workload gone meanwhile needs no stop; anything else refused is this pass's problem
      failure ??= result.refused[0]?.error;
    }
    if (failure) throw failure;
  }

  private advance(
    queueId: string,
    task: TaskView,
    cause: 'auto' | 'deadline',
    reason: string,
  ): Promise<void> {
    return this.decide(queueId, {
      type: 'Advance',
      cause,
      reason,
      at: this.now(),
      expectCurrent: task.taskId,
    });
  }

  /** True when the task reads no input queue, or the queue is empty (a Redis that does not answer: not yet). */
  private async inputDrained(task: TaskView): Promise<boolean> {
    const { inputRedis, inputQueue } = task.spec;
    if (!inputRedis || !inputQueue) return true;
    try {
      const url = openRedisUrl(inputRedis, this.config);
      return (await this.meter.lengths(url, [inputQueue]))[inputQueue] === 0;
    } catch {
      return false;
    }
  }
}
