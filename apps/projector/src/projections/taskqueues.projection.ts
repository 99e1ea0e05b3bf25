import { RecordedEventOf, RecordedHcnEvent, isEventOfTypes } from '@hcn/contracts';
import { TaskQueueEvent, taskQueueDecider, taskQueueStatus } from '@hcn/domain';
import { TASKQUEUE_STATE, TaskQueueStateRecord, selectList, upsertRows } from '@hcn/read-models';
import type { EntityManager } from 'typeorm';
import type { ChangeSet, Projection } from '../projection';

type RecordedTaskQueueEvent = RecordedEventOf<TaskQueueEvent['type']>;

/** The rows of the queues a batch touches, by queue id. */
async function loadRows(
  tx: EntityManager,
  ids: readonly string[],
): Promise<Map<string, TaskQueueStateRecord>> {
  const rows: TaskQueueStateRecord[] = await tx.query(
    `SELECT ${selectList(TASKQUEUE_STATE)} FROM taskqueue_state WHERE queue_id = ANY($1::uuid[])`,
    [ids],
  );
  return new Map(rows.map((r) => [r.queue_id, r]));
}

/** A queue's row after one more event, folded with the domain's evolve and mapped; undefined before creation. */
function applied(
  row: TaskQueueStateRecord | undefined,
  event: RecordedTaskQueueEvent,
): TaskQueueStateRecord | undefined {
  if (row && event.revision <= row.last_revision) return row; // replayed: already folded
  const state = taskQueueDecider.evolve(row?.state ?? taskQueueDecider.initialState, event);
  if (!state.exists || !state.definition || !state.queueId) return undefined;
  return {
    queue_id: state.queueId,
    namespace: state.definition.namespace,
    name: state.definition.name,
    status: taskQueueStatus(state),
    current_task: state.current ?? null,
    state,
    created_at: row?.created_at ?? event.recordedAt,
    updated_at: event.recordedAt,
    last_revision: event.revision,
  };
}

/**
 * Projection of taskqueue-* streams into taskqueue_state: one row per queue holding the task queue decider's folded
 * state (the domain's evolve, guarded by the last folded revision) and the columns lists filter on; the change
 * feed hears which queues changed.
 */
export const taskQueuesProjection: Projection = {
  name: 'taskqueues',
  filter: { kind: 'streamPrefix', prefixes: ['taskqueue-'] },
  tables: ['taskqueue_state'],
  async apply(tx: EntityManager, events: readonly RecordedHcnEvent[], changes: ChangeSet): Promise<void> {
    const known = events.filter((e): e is RecordedTaskQueueEvent =>
      isEventOfTypes(e, taskQueueDecider.eventTypes),
    );
    if (known.length === 0) return;
    const rows = await loadRows(tx, [...new Set(known.map((e) => e.data.queueId))]);
    const changed = new Set<string>();
    for (const event of known) {
      const row = applied(rows.get(event.data.queueId), event);
      if (!row) continue;
      rows.set(row.queue_id, row);
      changed.add(row.queue_id);
    }
    await upsertRows(
      tx,
      TASKQUEUE_STATE,
      [...changed].map((id) => rows.get(id) as TaskQueueStateRecord),
    );
    for (const id of changed) changes.taskqueues.add(id);
  },
};
