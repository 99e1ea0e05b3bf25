import { HcnError, type TaskLaunch, z } from '@hcn/contracts';
import type { TaskView } from '@hcn/domain';
import { TASKQUEUE_STATE, TaskQueueStateRecord, selectList } from '@hcn/read-models';
import type { DataSource } from 'typeorm';
import { Principal, requireNamespace } from '../auth/principal';
import type { Keyset } from './cursor';
import { Conditions, Page, listPage, pageShape } from './list-query';

/** A task queue as lists show it. */
export interface TaskQueueListItem {
  queueId: string;
  name: string;
  namespace: string;
  status: string;
  currentTask: { taskId: string; name: string } | null;
  /** Tasks per status. */
  tasks: Record<string, number>;
  createdAt: string;
  updatedAt: string;
}

/** One node's instances of a task round, as the read models know them. */
export interface TaskNodeInstances {
  nodeId: string;
  workloadId: string;
  launch: number;
  /** Status of each instance, by INSTANCE_ID. */
  instances: string[];
}

/** Counts of a task round's instances by status, over every node. */
export type InstanceCounts = Record<string, number>;

/** Query parameters of `GET /v1/taskqueues`. */
export const listTaskQueuesQuerySchema = z.object({ ...pageShape }).strict();

/** Task queues oldest first (the select list reads times as text under the same names). */
const KEYSET: Keyset = {
  sortName: 'createdAt',
  sort: { sql: 'taskqueue_state.created_at', type: 'timestamptz' },
  order: 'asc',
  ties: [{ sql: 'taskqueue_state.queue_id', type: 'uuid' }],
};

/** One page of the task queues of some namespaces, oldest first. */
export async function listTaskQueues(
  db: DataSource,
  namespaces: string[] | '*',
  page: z.output<typeof listTaskQueuesQuerySchema>,
): Promise<Page<TaskQueueListItem>> {
  const c = new Conditions();
  if (namespaces !== '*') c.add('namespace = ANY(?::text[])', namespaces);
  const found = await listPage<TaskQueueStateRecord>(db, {
    columns: selectList(TASKQUEUE_STATE),
    from: 'taskqueue_state',
    where: c,
    keyset: KEYSET,
    page,
  });
  return { ...found, items: found.items.map(listItem) };
}

function listItem(row: TaskQueueStateRecord): TaskQueueListItem {
  const current = row.state.tasks.find((t) => t.taskId === row.current_task);
  const tasks: Record<string, number> = {};
  for (const t of row.state.tasks) tasks[t.status] = (tasks[t.status] ?? 0) + 1;
  return {
    queueId: row.queue_id,
    name: row.name,
    namespace: row.namespace,
    status: row.status,
    currentTask: current ? { taskId: current.taskId, name: current.spec.name } : null,
    tasks,
    createdAt: new Date(row.created_at).toISOString(),
    updatedAt: new Date(row.updated_at).toISOString(),
  };
}

/** A queue's row the principal may see (one of another namespace looks like a missing one). */
export async function loadTaskQueueRow(
  db: DataSource,
  principal: Principal,
  queueId: string,
): Promise<TaskQueueStateRecord> {
  const [row]: TaskQueueStateRecord[] = await db.query(
    `SELECT ${selectList(TASKQUEUE_STATE)} FROM taskqueue_state WHERE queue_id = $1`,
    [queueId],
  );
  const notFound = { code: 'TASKQUEUE.NOT_FOUND', message: `Task queue ${queueId} does not exist` };
  if (!row) throw new HcnError(notFound.code, notFound.message, { queueId });
  requireNamespace(principal, row.namespace, notFound);
  return row;
}

/** The latest launch per node of a task's current round with its instances' statuses, by node id. */
export async function taskInstances(db: DataSource, task: TaskView): Promise<TaskNodeInstances[]> {
  const launches = Object.values(task.launches) as TaskLaunch[];
  if (launches.length === 0) return [];
  const rows: Array<{ workload_id: string; instances: Array<{ instance: number; status: string }> }> =
    await db.query(`SELECT workload_id, instances FROM workload_state WHERE workload_id = ANY($1::uuid[])`, [
      launches.map((l) => l.workloadId),
    ]);
  const byWorkload = new Map(rows.map((r) => [r.workload_id, r.instances]));
  return launches
    .map((l) => ({
      nodeId: l.nodeId,
      workloadId: l.workloadId,
      launch: l.launch,
      instances: (byWorkload.get(l.workloadId) ?? [])
        .slice()
        .sort((a, b) => a.instance - b.instance)
        .map((i) => i.status),
    }))
    .sort((a, b) => a.nodeId.localeCompare(b.nodeId));
}

/** Counts instances by status over every node (a launch not projected yet counts as `submitting`). */
export function countInstances(
  nodes: readonly TaskNodeInstances[],
  launches: Readonly<Record<string, TaskLaunch>>,
) {
  const counts: InstanceCounts = {};
  for (const node of nodes) {
    if (node.instances.length === 0)
      counts.submitting = (counts.submitting ?? 0) + launches[node.nodeId].instances;
    for (const status of node.instances) counts[status] = (counts[status] ?? 0) + 1;
  }
  return counts;
}

/** A task as the API shows it (its spec, status and times). */
export function taskItem(task: TaskView) {
  return {
    taskId: task.taskId,
    name: task.spec.name,
    status: task.status,
    round: task.round,
    startedAt: task.startedAt ?? null,
    endedAt: task.endedAt ?? null,
    reason: task.reason ?? null,
    nodes: Object.keys(task.launches).length,
    spec: task.spec,
  };
}
