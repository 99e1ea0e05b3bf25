import type { TaskLaunch } from '@hcn/contracts';
import {
  ACTIVE_ALLOCATION,
  WAITING_INSTANCE,
  TaskQueueState,
  TaskView,
  WorkloadState,
  instancesOnNode,
  taskOf,
} from '@hcn/domain';
import { submittedWorkloadId } from '../../commands/workload-command';

/** A node a task may run on, with its cores. */
export interface EligibleNode {
  readonly nodeId: string;
  readonly cpuCores: number;
}

/** What the saga knows when it plans a queue. */
export interface PlanInputs {
  readonly queue: TaskQueueState;
  /** The folded state of a workload the queue launched, when its submission was seen. */
  readonly workload: (workloadId: string) => WorkloadState | undefined;
  /** The running task's eligible nodes (empty when nothing runs). */
  readonly eligible: readonly EligibleNode[];
  /** Workloads this queue launched in earlier rounds or for tasks no longer running, with their state. */
  readonly retired: readonly string[];
  readonly nowMs: number;
}

/** What a queue needs done now. */
export interface TaskPlan {
  /** New launches to record (then submit). */
  readonly launch: TaskLaunch[];
  /** Recorded launches whose workload does not exist yet (a submission to make or to retry). */
  readonly submit: TaskLaunch[];
  /** Workloads to stop: retired ones still running. */
  readonly stop: string[];
  /** Every instance ended and some failed: the task failed, with this reason. */
  readonly fail?: string;
  /** Every instance exited 0: the queue may move on by itself once the input queue is empty. */
  readonly drained: boolean;
  /** The task's deadline passed. */
  readonly deadlinePassed: boolean;
}

/** The idempotency key (hence the workload id) of one node's launch of a task round. */
export function launchKey(
  queueId: string,
  taskId: string,
  round: number,
  nodeId: string,
  launch: number,
): string {
  return `tq/${queueId}/${taskId}/${round}/${nodeId}/${launch}`;
}

/** The workload id a launch gets (submitted under its launch key). */
export function launchWorkloadId(namespace: string, key: string): string {
  return submittedWorkloadId(namespace, key);
}

/** True when a workload still holds or may get allocations and nobody asked it to stop. */
function stillRunning(state: WorkloadState | undefined): boolean {
  if (!state || state.deleted || state.desired === 'stopped') return false;
  const active = Object.values(state.allocations).some((a) => ACTIVE_ALLOCATION.has(a.status));
  return active || state.instances.some((i) => WAITING_INSTANCE.has(i.status));
}

/** Every instance of a workload has ended, and each was lost with its node (nothing ran to an end there). */
function lostWhole(state: WorkloadState): boolean {
  return state.instances.length > 0 && state.instances.every((i) => i.status === 'lost');
}

function ended(state: WorkloadState): boolean {
  return (
    state.instances.length > 0 &&
    state.instances.every((i) => ['completed', 'failed', 'lost', 'stopped'].includes(i.status))
  );
}

/** Launches for eligible nodes without one, or whose instances were all lost with the node (it came back). */
function newLaunches(inputs: PlanInputs, task: TaskView, namespace: string): TaskLaunch[] {
  const queueId = inputs.queue.queueId as string;
  const launches: TaskLaunch[] = [];
  for (const { nodeId, cpuCores } of inputs.eligible) {
    const instances = instancesOnNode(task.spec, cpuCores);
    if (instances < 1) continue;
    const last = task.launches[nodeId];
    const state = last && inputs.workload(last.workloadId);
    if (last && !(state && lostWhole(state))) continue;
    const launch = (last?.launch ?? 0) + 1;
    const key = launchKey(queueId, task.taskId, task.round, nodeId, launch);
    launches.push({ nodeId, workloadId: launchWorkloadId(namespace, key), instances, launch });
  }
  return launches;
}

/** How the running task's instances ended so far: failed, every one exited 0, or still going. */
function outcome(inputs: PlanInputs, task: TaskView): { fail?: string; drained: boolean } {
  const latest = Object.values(task.launches).map((l) => inputs.workload(l.workloadId));
  if (latest.length === 0 || latest.some((s) => !s || !ended(s))) return { drained: false };
  const counted = latest.filter((s): s is WorkloadState => !!s && !lostWhole(s));
  const instances = counted.flatMap((s) => s.instances);
  const failed = instances.filter((i) => i.status === 'failed').length;
  if (failed > 0) return { fail: `${failed} of ${instances.length} instances failed`, drained: false };
  return { drained: instances.length > 0 && instances.every((i) => i.status === 'completed') };
}

/**
 * What a queue needs now: launches for the running task on eligible nodes that have none (or lost theirs and are
 * back), submissions of launches not seen yet, stops of retired workloads still running, and the running task's
 * outcome (failed, drained) and deadline. Pure.
 */
export function planQueue(inputs: PlanInputs): TaskPlan {
  const { queue } = inputs;
  const stop = inputs.retired.filter((id) => stillRunning(inputs.workload(id)));
  const task = queue.paused || queue.deleted ? undefined : taskOf(queue, queue.current);
  const idle = { launch: [], submit: [], stop, drained: false, deadlinePassed: false };
  if (!task || task.status !== 'running' || !queue.definition) return idle;
  const submit = Object.values(task.launches).filter((l) => !inputs.workload(l.workloadId));
  const deadline = task.spec.deadlineSeconds;
  const startedMs = task.startedAt ? Date.parse(task.startedAt) : inputs.nowMs;
  return {
    launch: newLaunches(inputs, task, queue.definition.namespace),
    submit,
    stop,
    ...outcome(inputs, task),
    deadlinePassed: deadline !== undefined && inputs.nowMs >= startedMs + deadline * 1000,
  };
}
