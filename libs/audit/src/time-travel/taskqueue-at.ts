import type { RecordedHcnEvent } from '@hcn/contracts';
import { TaskQueueState, taskQueueDecider, taskQueueStatus } from '@hcn/domain';
import type { EventRef } from '../chain/chain.model';
import { eventRef } from '../chain/event-ref';
import { AsOf, StreamAt } from './stream-at';

/** One step of a task queue's history: the event's coordinates and actor, and what it did in a line. */
export interface TaskQueueStep extends EventRef {
  readonly summary: string;
}

/** A task queue as of an instant: its status and tasks then, and every step up to then (who advanced it, when). */
export interface TaskQueueAsOf extends AsOf {
  readonly queueId: string;
  readonly namespace: string | null;
  readonly status: string;
  readonly state: TaskQueueState;
  readonly history: TaskQueueStep[];
}

function taskName(state: TaskQueueState, taskId: string): string {
  return state.tasks.find((t) => t.taskId === taskId)?.spec.name ?? taskId;
}

/** What a task queue event did, in a line (names as of the event). */
function summary(state: TaskQueueState, event: RecordedHcnEvent): string {
  if (!('queueId' in event.data)) return event.type;
  const task = 'taskId' in event.data ? taskName(state, event.data.taskId) : '';
  switch (event.type) {
    case 'TaskQueueCreated':
      return `created ${event.data.definition.name} in ${event.data.definition.namespace}`;
    case 'TaskAdded':
      return `added ${event.data.spec.name}`;
    case 'TaskStarted':
      return `started ${task} (round ${event.data.round}, ${event.data.cause})`;
    case 'TaskInstancesLaunched': {
      const instances = event.data.launches.reduce((sum, l) => sum + l.instances, 0);
      return `${task}: ${instances} instances on ${event.data.launches.length} nodes`;
    }
    case 'TaskCompleted':
      return `completed ${task} (${event.data.cause}): ${event.data.reason}`;
    case 'TaskFailed':
    case 'TaskCancelled':
      return `${event.type === 'TaskFailed' ? 'failed' : 'cancelled'} ${task}: ${event.data.reason}`;
    case 'TaskRetried':
      return `retried ${task}`;
    case 'TaskQueuePaused':
    case 'TaskQueueDeleted':
      return `${event.type === 'TaskQueuePaused' ? 'paused' : 'deleted'}: ${event.data.reason}`;
    case 'TaskQueueResumed':
      return 'resumed';
    default:
      return event.type;
  }
}

/** A task queue's stream folded up to an instant with the task queue decider's evolve, and its history to then. */
export function taskQueueAsOf(
  queueId: string,
  events: readonly RecordedHcnEvent[],
  atMs: number,
): TaskQueueAsOf {
  const fold = new StreamAt(taskQueueDecider, atMs);
  const history: TaskQueueStep[] = [];
  for (const event of events) {
    const applied = fold.asOf().eventsApplied;
    fold.accept(event);
    if (fold.asOf().eventsApplied > applied)
      history.push({ ...eventRef(event), summary: summary(fold.state, event) });
  }
  const state = fold.state;
  return {
    queueId,
    ...fold.asOf(),
    namespace: state.definition?.namespace ?? null,
    status: state.exists ? taskQueueStatus(state) : 'absent',
    state,
    history,
  };
}
