import type { EventDataOf, TaskLaunch, TaskQueueDefinition, TaskSpec } from '@hcn/contracts';
import { EventTypes, defineDecider } from '../decider';
import { sameJson } from '../equality';
import { DomainError, assertNever } from '../errors';
import { TaskQueueState, TaskView, initialTaskQueueState, nextPending, taskOf } from './taskqueue.state';

/** Most tasks one queue holds. */
export const MAX_TASKS_PER_QUEUE = 1000;

/** What moves a queue on from its running task. */
export type AdvanceCause = 'next' | 'auto' | 'deadline';

/** Commands on a task queue (time passed in as `at`). */
export type TaskQueueCommand =
  | { type: 'CreateQueue'; queueId: string; definition: TaskQueueDefinition }
  | { type: 'DeleteQueue'; reason: string; at: string }
  | { type: 'AddTask'; taskId: string; spec: TaskSpec }
  /** `expectCurrent`: advance only while this task is the running one (the saga's guard against a race). */
  | { type: 'Advance'; cause: AdvanceCause; reason: string; at: string; expectCurrent?: string }
  | { type: 'Pause'; reason: string }
  | { type: 'Resume'; at: string }
  | { type: 'CancelTask'; taskId: string; reason: string; at: string }
  | { type: 'RetryTask'; taskId: string; at: string }
  | { type: 'RecordLaunches'; taskId: string; round: number; launches: readonly TaskLaunch[] }
  | { type: 'RecordTaskFailed'; taskId: string; round: number; reason: string; at: string };

/** Events of a task queue stream. */
export type TaskQueueEvent = {
  [T in TaskQueueEventType]: { type: T; data: EventDataOf<T> };
}[TaskQueueEventType];

/** Types of the events in a task queue stream. */
export type TaskQueueEventType =
  | 'TaskQueueCreated'
  | 'TaskQueueDeleted'
  | 'TaskAdded'
  | 'TaskStarted'
  | 'TaskInstancesLaunched'
  | 'TaskCompleted'
  | 'TaskFailed'
  | 'TaskCancelled'
  | 'TaskRetried'
  | 'TaskQueuePaused'
  | 'TaskQueueResumed';

const ENDED = new Set(['completed', 'failed', 'cancelled']);

function refusal(code: string, message: string, details: Record<string, unknown> = {}): DomainError {
  return new DomainError(code, message, details);
}

/** A queue that does not exist or was deleted refuses every command but its creation. */
function notLive(state: TaskQueueState): DomainError | undefined {
  if (!state.exists) return refusal('TASKQUEUE.NOT_FOUND', 'Task queue does not exist');
  if (state.deleted)
    return refusal('TASKQUEUE.DELETED', `Task queue ${state.queueId} was deleted`, {
      queueId: state.queueId,
    });
  return undefined;
}

function taskRefusal(state: TaskQueueState, taskId: string): { task?: TaskView; error?: DomainError } {
  const task = taskOf(state, taskId);
  if (task) return { task };
  return { error: refusal('TASKQUEUE.TASK_NOT_FOUND', `Task ${taskId} is not in this queue`, { taskId }) };
}

function validateCreate(command: TaskQueueCommand & { type: 'CreateQueue' }, state: TaskQueueState) {
  if (!state.exists || (sameJson(state.definition, command.definition) && !state.deleted)) return undefined;
  return refusal('TASKQUEUE.ALREADY_EXISTS', `Task queue ${command.queueId} exists`, {
    queueId: command.queueId,
  });
}

function validateAdd(command: TaskQueueCommand & { type: 'AddTask' }, state: TaskQueueState) {
  const same = taskOf(state, command.taskId);
  if (same)
    return sameJson(same.spec, command.spec)
      ? undefined
      : refusal('TASKQUEUE.TASK_ID_TAKEN', 'Task id in use');
  if (state.tasks.some((t) => t.spec.name === command.spec.name))
    return refusal('TASKQUEUE.TASK_NAME_TAKEN', `The queue has a task named ${command.spec.name}`, {
      name: command.spec.name,
    });
  if (state.tasks.length >= MAX_TASKS_PER_QUEUE)
    return refusal('TASKQUEUE.FULL', `A queue holds at most ${MAX_TASKS_PER_QUEUE} tasks`);
  return undefined;
}

function validateAdvance(command: TaskQueueCommand & { type: 'Advance' }, state: TaskQueueState) {
  if (state.paused) return refusal('TASKQUEUE.PAUSED', 'The queue is paused; resume it first');
  if (command.expectCurrent !== undefined && command.expectCurrent !== state.current)
    return refusal('TASKQUEUE.STALE', 'The running task changed meanwhile', {
      current: state.current ?? null,
    });
  if (!state.current && !nextPending(state))
    return refusal('TASKQUEUE.NOTHING_PENDING', 'No task runs and none is pending');
  return undefined;
}

function validateTaskCommand(
  command: TaskQueueCommand & { type: 'CancelTask' | 'RetryTask' },
  state: TaskQueueState,
) {
  const { task, error } = taskRefusal(state, command.taskId);
  if (!task) return error;
  if (command.type === 'CancelTask') {
    if (task.status === 'completed' || task.status === 'failed')
      return refusal('TASKQUEUE.TASK_ENDED', `Task ${task.spec.name} has ${task.status}`, {
        status: task.status,
      });
    return undefined;
  }
  if (task.status === 'failed' || task.status === 'cancelled') return undefined;
  return refusal('TASKQUEUE.TASK_NOT_RETRYABLE', `Only a failed or cancelled task can be retried`, {
    status: task.status,
  });
}

/** A saga's record about a task must be about the running task's current round. */
function validateSagaRecord(
  command: TaskQueueCommand & { type: 'RecordLaunches' | 'RecordTaskFailed' },
  state: TaskQueueState,
) {
  const task = taskOf(state, command.taskId);
  if (task && state.current === task.taskId && task.round === command.round && !state.paused)
    return undefined;
  return refusal('TASKQUEUE.STALE', 'The task is no longer running in this round', {
    taskId: command.taskId,
    round: command.round,
  });
}

/** Why a task queue command is refused, or undefined when accepted (a no-op included). */
export function validateTaskQueue(command: TaskQueueCommand, state: TaskQueueState): DomainError | undefined {
  if (command.type === 'CreateQueue') return validateCreate(command, state);
  const dead = notLive(state);
  if (dead) return dead;
  switch (command.type) {
    case 'DeleteQueue':
    case 'Pause':
    case 'Resume':
      return undefined;
    case 'AddTask':
      return validateAdd(command, state);
    case 'Advance':
      return validateAdvance(command, state);
    case 'CancelTask':
    case 'RetryTask':
      return validateTaskCommand(command, state);
    case 'RecordLaunches':
    case 'RecordTaskFailed':
      return validateSagaRecord(command, state);
    default:
      return assertNever(command);
  }
}

function started(
  state: TaskQueueState,
  task: TaskView,
  cause: EventDataOf<'TaskStarted'>['cause'],
  at: string,
) {
  const queueId = state.queueId as string;
  return {
    type: 'TaskStarted' as const,
    data: { queueId, taskId: task.taskId, round: task.round + 1, cause, at },
  };
}

function decideAdvance(
  command: TaskQueueCommand & { type: 'Advance' },
  state: TaskQueueState,
): TaskQueueEvent[] {
  const queueId = state.queueId as string;
  const events: TaskQueueEvent[] = [];
  const { cause, reason, at } = command;
  if (state.current)
    events.push({ type: 'TaskCompleted', data: { queueId, taskId: state.current, cause, reason, at } });
  const next = nextPending(state);
  if (next) events.push(started(state, next, cause, at));
  return events;
}

function decideTaskCommand(
  command: TaskQueueCommand & { type: 'CancelTask' | 'RetryTask' },
  state: TaskQueueState,
): TaskQueueEvent[] {
  const queueId = state.queueId as string;
  const task = taskOf(state, command.taskId) as TaskView;
  const { taskId, at } = command;
  if (command.type === 'CancelTask') {
    if (task.status === 'cancelled') return [];
    return [{ type: 'TaskCancelled', data: { queueId, taskId, reason: command.reason, at } }];
  }
  const retried: TaskQueueEvent = { type: 'TaskRetried', data: { queueId, taskId } };
  if (state.current || state.paused) return [retried];
  return [retried, started(state, task, 'retry', at)];
}

function decideLaunches(
  command: TaskQueueCommand & { type: 'RecordLaunches' },
  state: TaskQueueState,
): TaskQueueEvent[] {
  const task = taskOf(state, command.taskId) as TaskView;
  const fresh = command.launches.filter((l) => (task.launches[l.nodeId]?.launch ?? 0) < l.launch);
  if (fresh.length === 0) return [];
  const data = { queueId: state.queueId as string, taskId: task.taskId, round: task.round, launches: fresh };
  return [{ type: 'TaskInstancesLaunched', data }];
}

/** The events of a command `validate` accepted. */
function decideAcceptedTaskQueue(command: TaskQueueCommand, state: TaskQueueState): TaskQueueEvent[] {
  const queueId = state.queueId as string;
  switch (command.type) {
    case 'CreateQueue':
      return state.exists
        ? []
        : [{ type: 'TaskQueueCreated', data: { queueId: command.queueId, definition: command.definition } }];
    case 'DeleteQueue':
      return [{ type: 'TaskQueueDeleted', data: { queueId, reason: command.reason, at: command.at } }];
    case 'AddTask':
      return taskOf(state, command.taskId)
        ? []
        : [{ type: 'TaskAdded', data: { queueId, taskId: command.taskId, spec: command.spec } }];
    case 'Advance':
      return decideAdvance(command, state);
    case 'Pause':
      return state.paused ? [] : [{ type: 'TaskQueuePaused', data: { queueId, reason: command.reason } }];
    case 'Resume': {
      if (!state.paused) return [];
      const running = taskOf(state, state.current);
      return [
        { type: 'TaskQueueResumed', data: { queueId, ...(running ? { round: running.round + 1 } : {}) } },
      ];
    }
    case 'CancelTask':
    case 'RetryTask':
      return decideTaskCommand(command, state);
    case 'RecordLaunches':
      return decideLaunches(command, state);
    case 'RecordTaskFailed': {
      const { taskId, reason, at } = command;
      return [{ type: 'TaskFailed', data: { queueId, taskId, reason, at } }];
    }
    default:
      return assertNever(command);
  }
}

function withTask(state: TaskQueueState, taskId: string, change: (t: TaskView) => TaskView): TaskQueueState {
  return { ...state, tasks: state.tasks.map((t) => (t.taskId === taskId ? change(t) : t)) };
}

function ended(
  state: TaskQueueState,
  taskId: string,
  status: TaskView['status'],
  at: string,
  reason: string,
) {
  const next = withTask(state, taskId, (t) => ({ ...t, status, endedAt: at, reason }));
  return state.current === taskId ? { ...next, current: undefined } : next;
}

function freshRound(task: TaskView, round: number): TaskView {
  return { ...task, round, launches: {}, workloads: [] };
}

/** Folds one task queue event. */
export function evolveTaskQueue(state: TaskQueueState, event: TaskQueueEvent): TaskQueueState {
  switch (event.type) {
    case 'TaskQueueCreated':
      return {
        ...initialTaskQueueState,
        exists: true,
        queueId: event.data.queueId,
        definition: event.data.definition,
      };
    case 'TaskQueueDeleted': {
      const current = state.current;
      const gone = current ? ended(state, current, 'cancelled', event.data.at, event.data.reason) : state;
      return { ...gone, deleted: true, current: undefined };
    }
    case 'TaskAdded':
      return {
        ...state,
        tasks: [
          ...state.tasks,
          {
            taskId: event.data.taskId,
            spec: event.data.spec,
            status: 'pending',
            round: 0,
            launches: {},
            workloads: [],
          },
        ],
      };
    case 'TaskStarted': {
      const { taskId, round, at } = event.data;
      const next = withTask(state, taskId, (t) => ({
        ...freshRound(t, round),
        status: 'running',
        startedAt: at,
        endedAt: undefined,
        reason: undefined,
      }));
      return { ...next, current: taskId };
    }
    case 'TaskInstancesLaunched': {
      const { taskId, launches } = event.data;
      return withTask(state, taskId, (t) => ({
        ...t,
        launches: { ...t.launches, ...Object.fromEntries(launches.map((l) => [l.nodeId, l])) },
        workloads: [...t.workloads, ...launches.map((l) => l.workloadId)],
      }));
    }
    case 'TaskCompleted':
      return ended(state, event.data.taskId, 'completed', event.data.at, event.data.reason);
    case 'TaskFailed':
      return ended(state, event.data.taskId, 'failed', event.data.at, event.data.reason);
    case 'TaskCancelled':
      return ended(state, event.data.taskId, 'cancelled', event.data.at, event.data.reason);
    case 'TaskRetried':
      return withTask(state, event.data.taskId, (t) => ({ ...t, status: 'pending', endedAt: undefined }));
    case 'TaskQueuePaused':
      return { ...state, paused: true };
    case 'TaskQueueResumed': {
      const { round } = event.data;
      const resumed = { ...state, paused: false };
      return round && state.current ? withTask(resumed, state.current, (t) => freshRound(t, round)) : resumed;
    }
    default:
      return assertNever(event);
  }
}

/** True when a task has ended (completed, failed or cancelled). */
export function hasTaskEnded(task: TaskView): boolean {
  return ENDED.has(task.status);
}

const TASKQUEUE_EVENT_TYPES: EventTypes<TaskQueueEvent> = {
  TaskQueueCreated: true,
  TaskQueueDeleted: true,
  TaskAdded: true,
  TaskStarted: true,
  TaskInstancesLaunched: true,
  TaskCompleted: true,
  TaskFailed: true,
  TaskCancelled: true,
  TaskRetried: true,
  TaskQueuePaused: true,
  TaskQueueResumed: true,
};

/** The task queue decider. */
export const taskQueueDecider = defineDecider({
  initialState: initialTaskQueueState,
  eventTypes: TASKQUEUE_EVENT_TYPES,
  validate: validateTaskQueue,
  decideAccepted: decideAcceptedTaskQueue,
  evolve: evolveTaskQueue,
});
