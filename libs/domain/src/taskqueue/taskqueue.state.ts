import type { EventDataOf, TaskLaunch, TaskQueueDefinition, TaskSpec } from '@hcn/contracts';

/** Where a task stands. */
export type TaskStatus = 'pending' | 'running' | 'completed' | 'failed' | 'cancelled';

/** One task of a queue. */
export interface TaskView {
  readonly taskId: string;
  readonly spec: TaskSpec;
  readonly status: TaskStatus;
  /** How many times it started (its current or last round). */
  readonly round: number;
  readonly startedAt?: string;
  readonly endedAt?: string;
  /** Why it ended, or what moved the queue on. */
  readonly reason?: string;
  /** The current round's launches per node (the node's latest; earlier ones of the round in `workloads`). */
  readonly launches: Readonly<Record<string, TaskLaunch>>;
  /** Every workload of the current round, in launch order. */
  readonly workloads: readonly string[];
}

/** Everything the task queue decider knows, folded from `taskqueue-<id>`. */
export interface TaskQueueState {
  readonly exists: boolean;
  readonly deleted: boolean;
  readonly queueId?: string;
  readonly definition?: TaskQueueDefinition;
  readonly paused: boolean;
  /** In the order they were added. */
  readonly tasks: readonly TaskView[];
  /** The running task, when one runs. */
  readonly current?: string;
}

/** Before creation. */
export const initialTaskQueueState: TaskQueueState = {
  exists: false,
  deleted: false,
  paused: false,
  tasks: [],
};

/** The queue's status: deleted, paused, running (a task runs) or idle. */
export function taskQueueStatus(state: TaskQueueState): 'deleted' | 'paused' | 'running' | 'idle' {
  if (state.deleted) return 'deleted';
  if (state.paused) return 'paused';
  return state.current ? 'running' : 'idle';
}

/** A task of the queue by id. */
export function taskOf(state: TaskQueueState, taskId: string | undefined): TaskView | undefined {
  return taskId === undefined ? undefined : state.tasks.find((t) => t.taskId === taskId);
}

/** The first pending task in queue order: the one `next` starts. */
export function nextPending(state: TaskQueueState): TaskView | undefined {
  return state.tasks.find((t) => t.status === 'pending');
}

/**
 * Instances a node gets: `instancesPerNode`, else `floor(cores × instancesPerCpu)` (default one per core); 0 leaves
 * the node out.
 */
export function instancesOnNode(spec: TaskSpec, cpuCores: number): number {
  if (spec.instancesPerNode !== undefined) return spec.instancesPerNode;
  return Math.min(1000, Math.floor(cpuCores * (spec.instancesPerCpu ?? 1) + 1e-9));
}

/** A launch record of the data of TaskInstancesLaunched. */
export type TaskLaunchesData = EventDataOf<'TaskInstancesLaunched'>;
