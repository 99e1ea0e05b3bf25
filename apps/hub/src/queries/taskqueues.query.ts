import { HcnError, type TaskLaunch, taskSpecSchema, z } from '@hcn/contracts';
import type { TaskView } from '@hcn/domain';
import { TASKQUEUE_STATE, TaskQueueStateRecord, selectList } from '@hcn/read-models';
import type { DataSource } from 'typeorm';
import { Principal, requireNamespace } from '../auth/principal';
import type { Keyset } from './cursor';
import { Conditions, Page, listPage, pageShape } from './list-query';
import { pageOf } from '../common/api-answer';

const queueStatusSchema = z.string().describe('deleted | paused | running | idle');

/** A task queue as lists show it. */
export const taskQueueListItemSchema = z
  .object({
    queueId: z.string(),
    name: z.string(),
    namespace: z.string(),
    status: queueStatusSchema,
    currentTask: z.object({ taskId: z.string(), name: z.string() }).nullable(),
    tasks: z.record(z.string(), z.number().int()).describe('tasks per status'),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .meta({ id: 'TaskQueueListItem' });

/** A task queue as lists show it (see taskQueueListItemSchema). */
export type TaskQueueListItem = z.output<typeof taskQueueListItemSchema>;

/** One page of `GET /v1/taskqueues`. */
export const taskQueuePageSchema = pageOf(taskQueueListItemSchema, 'TaskQueuePage');

/** One node's instances of a task round, as the read models know them. */
const taskNodeInstancesSchema = z.object({
  nodeId: z.string(),
  workloadId: z.string(),
  launch: z.number().int(),
  instances: z.array(z.string()).describe('status of each instance, by INSTANCE_ID'),
});

/** One node's instances of a task round (see taskNodeInstancesSchema). */
export type TaskNodeInstances = z.output<typeof taskNodeInstancesSchema>;

/** Counts of a task round's instances by status, over every node. */
const instanceCountsSchema = z
  .record(z.string(), z.number().int())
  .describe("the current round's instances by status (submitting: launched, not projected yet)");

/** Counts of a task round's instances by status, over every node. */
export type InstanceCounts = z.output<typeof instanceCountsSchema>;

/** A running task's progress sampled from its Redis queues, or why there is none (null: not sampled). */
const taskProgressSchema = z
  .union([
    z.object({
      inputLeft: z.number(),
      outputDone: z.number(),
      ratePerSecond: z.number(),
      etaSeconds: z.number().nullable(),
      fractionDone: z.number().nullable(),
      sampledAt: z.string(),
    }),
    z.object({ unavailable: z.string(), sampledAt: z.string().nullable() }),
  ])
  .nullable()
  .meta({ id: 'TaskProgress' });

/** A task as the API shows it (its spec, status and times). */
const taskItemSchema = z.object({
  taskId: z.string(),
  name: z.string(),
  status: z.enum(['pending', 'running', 'completed', 'failed', 'cancelled']),
  round: z.number().int().describe('how many times it started'),
  startedAt: z.string().nullable(),
  endedAt: z.string().nullable(),
  reason: z.string().nullable().describe('why it ended, or what moved the queue on'),
  nodes: z.number().int().describe("nodes of the current round's launches"),
  spec: taskSpecSchema.meta({ id: 'TaskSpec' }),
});

/** One task queue as `GET /v1/taskqueues/:id` answers it: its tasks, the running one with instance counts. */
export const taskQueueSchema = z
  .object({
    queueId: z.string(),
    name: z.string(),
    namespace: z.string(),
    description: z.string(),
    status: queueStatusSchema,
    currentTask: z.string().nullable().describe('the running task'),
    tasks: z.array(
      taskItemSchema
        .extend({ progress: taskProgressSchema, instances: instanceCountsSchema.optional() })
        .meta({ id: 'TaskQueueTask', description: 'a task; the running one with its instance counts' }),
    ),
    problem: z
      .object({ at: z.string(), message: z.string() })
      .nullable()
      .describe('the last thing that went wrong for the queue'),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .meta({ id: 'TaskQueue' });

/** One task as `GET /v1/taskqueues/:id/tasks/:taskId` answers it: its round's instances per node, progress. */
export const taskSchema = taskItemSchema
  .extend({
    instances: instanceCountsSchema,
    nodes: z
      .array(taskNodeInstancesSchema)
      .describe("the current round's launches per node (INSTANCE_ID order)"),
    progress: taskProgressSchema,
  })
  .meta({ id: 'Task' });

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
export function taskItem(task: TaskView): z.output<typeof taskItemSchema> {
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
