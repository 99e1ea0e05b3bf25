import type { TaskQueueState } from '@hcn/domain';
import { defineTable } from './table';

/** One taskqueue_state row (projection of taskqueue-* streams), times as ISO-8601 text. */
export interface TaskQueueStateRecord {
  queue_id: string;
  namespace: string;
  name: string;
  /** deleted, paused, running or idle (the domain's taskQueueStatus). */
  status: string;
  /** The running task's id, if any. */
  current_task: string | null;
  /** The task queue decider's folded state, from which the other columns are mapped. */
  state: TaskQueueState;
  created_at: string;
  updated_at: string;
  /** Revision in the queue's stream of the last event applied (a replayed event changes nothing). */
  last_revision: number;
}

/** The taskqueue_state table: one row per task queue. */
export const TASKQUEUE_STATE = defineTable<TaskQueueStateRecord>({
  name: 'taskqueue_state',
  key: 'queue_id',
  columns: {
    queue_id: 'uuid',
    namespace: 'text',
    name: 'text',
    status: 'text',
    current_task: 'uuid',
    state: 'jsonb',
    created_at: 'timestamptz',
    updated_at: 'timestamptz',
    last_revision: 'int',
  },
});
