import { TaskQueueItem, getAll } from '../api';
import { ago } from '../format';
import { namespaceRooms, useApp, useLive, useNow } from '../live';

/** Task states in the order a queue moves through them. */
export const TASK_STATES = ['running', 'pending', 'completed', 'failed', 'cancelled'];

/** A queue's task counts as `2 pending · 1 running`, in TASK_STATES order. */
export function taskCounts(counts: Record<string, number>): string {
  const known = TASK_STATES.filter((s) => counts[s]).map((s) => `${counts[s]} ${s}`);
  const other = Object.keys(counts)
    .filter((s) => !TASK_STATES.includes(s) && counts[s])
    .map((s) => `${counts[s]} ${s}`);
  return [...known, ...other].join(' · ') || 'no tasks';
}

/**
 * Task queues: every queue the token may see with its status, running task and task counts; live (the change feed
 * names changed queues, and a poll every 2 s while the page shows).
 */
export function TaskQueues() {
  const { session } = useApp();
  const now = useNow();
  const queues = useLive(
    async () => ({ items: await getAll<TaskQueueItem>('/v1/taskqueues') }),
    namespaceRooms(session),
    [],
    { accept: (c) => (c.taskqueues?.length ?? 0) > 0, pollMs: 2000 },
  );
  const items = queues.data?.items ?? [];
  return (
    <section>
      <h2>
        Task queues <span className="muted">({queues.data ? items.length : '…'})</span>
      </h2>
      {queues.error ? <p className="error">{queues.error}</p> : null}
      {queues.data && items.length === 0 ? (
        <p className="muted">
          No task queue yet: <code>POST /v1/taskqueues</code>, then <code>POST /v1/taskqueues/:id/tasks</code>
          .
        </p>
      ) : null}
      {items.length > 0 ? (
        <table className="quotas" data-testid="taskqueues-table">
          <thead>
            <tr>
              <th>name</th>
              <th>namespace</th>
              <th>status</th>
              <th>running task</th>
              <th>tasks</th>
              <th>updated</th>
            </tr>
          </thead>
          <tbody>
            {items.map((q) => (
              <tr key={q.queueId} data-testid={`taskqueue-${q.name}`}>
                <td>
                  <a href={`#/taskqueues/${q.queueId}`} data-testid="taskqueue-link">
                    {q.name}
                  </a>
                </td>
                <td>{q.namespace}</td>
                <td>
                  <span className={`badge ${q.status}`} data-testid="taskqueue-status">
                    {q.status}
                  </span>
                </td>
                <td data-testid="taskqueue-current">{q.currentTask?.name ?? '—'}</td>
                <td data-testid="taskqueue-counts">{taskCounts(q.tasks)}</td>
                <td>{ago(q.updatedAt, now)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
    </section>
  );
}
