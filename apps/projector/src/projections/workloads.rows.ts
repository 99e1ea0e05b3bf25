import type { WorkloadSpec } from '@hcn/contracts';
import { AllocationStatus, WorkloadInstance, WorkloadStatus, allocationFromRow } from '@hcn/read-models';
import type { EntityManager } from 'typeorm';
import type { AllocationModel, WorkloadModel } from './workloads.model';
import type { WorkloadBook } from './workloads.reducer';

type Row = Record<string, unknown>;

/** Timestamps are read as ISO-8601 text so a row written back keeps its exact value (microseconds included). */
function columns(plain: string, timestamps: readonly string[]): string {
  return [plain, ...timestamps.map((c) => `to_json(${c}) #>> '{}' AS ${c}`)].join(', ');
}

const WORKLOAD_COLUMNS = columns(
  `workload_id, namespace, name, type, status, priority, replicas, generation, spec, instances, hops,
   stop_requested, deleted, last_revision`,
  ['submitted_at', 'updated_at'],
);
const ALLOCATION_COLUMNS = columns(
  `allocation_id, workload_id, namespace, instance, attempt, generation, node_id, domain_id, status, cpu_millis,
   memory_bytes, accelerators, exit_code, signal, reason, pid`,
  ['placed_at', 'started_at', 'ended_at', 'updated_at'],
);

function toWorkload(row: Row): WorkloadModel {
  return {
    workloadId: row.workload_id as string,
    namespace: row.namespace as string,
    name: row.name as string,
    type: row.type as string,
    status: row.status as WorkloadStatus,
    priority: row.priority as number,
    replicas: row.replicas as number,
    generation: row.generation as number,
    spec: row.spec as WorkloadSpec,
    instances: row.instances as WorkloadInstance[],
    hops: row.hops as number,
    stopRequested: row.stop_requested as boolean,
    deleted: row.deleted as boolean,
    submittedAt: row.submitted_at as string,
    updatedAt: row.updated_at as string,
    lastRevision: row.last_revision as number,
  };
}

function toAllocation(row: Row): AllocationModel {
  const fields = allocationFromRow(row, (v) => v as string);
  return { ...fields, status: fields.status as AllocationStatus, updatedAt: row.updated_at as string };
}

/** Loads the workloads and allocations a batch refers to into a book. */
export async function loadBook(
  tx: EntityManager,
  book: WorkloadBook,
  workloadIds: readonly string[],
  allocationIds: readonly string[],
): Promise<void> {
  const [workloads, allocations]: [Row[], Row[]] = await Promise.all([
    tx.query(`SELECT ${WORKLOAD_COLUMNS} FROM workload_state WHERE workload_id = ANY($1::uuid[])`, [
      workloadIds,
    ]),
    allocationIds.length === 0
      ? Promise.resolve([])
      : tx.query(`SELECT ${ALLOCATION_COLUMNS} FROM allocation_state WHERE allocation_id = ANY($1::uuid[])`, [
          allocationIds,
        ]),
  ]);
  workloads.map(toWorkload).forEach((w) => book.workloads.set(w.workloadId, w));
  allocations.map(toAllocation).forEach((a) => book.allocations.set(a.allocationId, a));
}

/** Upserts the given workloads in one statement. */
export async function saveWorkloads(tx: EntityManager, workloads: readonly WorkloadModel[]): Promise<void> {
  if (workloads.length === 0) return;
  const rows = workloads.map((w) => ({
    workload_id: w.workloadId,
    namespace: w.namespace,
    name: w.name,
    type: w.type,
    status: w.status,
    priority: w.priority,
    replicas: w.replicas,
    generation: w.generation,
    spec: w.spec,
    instances: w.instances,
    hops: w.hops,
    stop_requested: w.stopRequested,
    deleted: w.deleted,
    submitted_at: w.submittedAt,
    updated_at: w.updatedAt,
    last_revision: w.lastRevision,
  }));
  await tx.query(
    `INSERT INTO workload_state (workload_id, namespace, name, type, status, priority, replicas, generation, spec,
       instances, hops, stop_requested, deleted, submitted_at, updated_at, last_revision)
     SELECT * FROM jsonb_to_recordset($1::jsonb) AS r(workload_id uuid, namespace text, name text, type text,
       status text, priority int, replicas int, generation int, spec jsonb, instances jsonb, hops int,
       stop_requested boolean, deleted boolean, submitted_at timestamptz, updated_at timestamptz, last_revision int)
     ON CONFLICT (workload_id) DO UPDATE SET name = EXCLUDED.name, type = EXCLUDED.type, status = EXCLUDED.status,
       priority = EXCLUDED.priority, replicas = EXCLUDED.replicas, generation = EXCLUDED.generation,
       spec = EXCLUDED.spec, instances = EXCLUDED.instances, hops = EXCLUDED.hops,
       stop_requested = EXCLUDED.stop_requested, deleted = EXCLUDED.deleted, updated_at = EXCLUDED.updated_at,
       last_revision = EXCLUDED.last_revision`,
    [JSON.stringify(rows)],
  );
}

/** Upserts the given allocations in one statement. */
export async function saveAllocations(
  tx: EntityManager,
  allocations: readonly AllocationModel[],
): Promise<void> {
  if (allocations.length === 0) return;
  const rows = allocations.map((a) => ({
    allocation_id: a.allocationId,
    workload_id: a.workloadId,
    namespace: a.namespace,
    instance: a.instance,
    attempt: a.attempt,
    generation: a.generation,
    node_id: a.nodeId,
    domain_id: a.domainId,
    status: a.status,
    cpu_millis: a.resources.cpuMillis,
    memory_bytes: a.resources.memoryBytes,
    accelerators: a.resources.accelerators,
    exit_code: a.exitCode,
    signal: a.signal,
    reason: a.reason,
    pid: a.pid,
    placed_at: a.placedAt,
    started_at: a.startedAt,
    ended_at: a.endedAt,
    updated_at: a.updatedAt,
  }));
  await tx.query(
    `INSERT INTO allocation_state (allocation_id, workload_id, namespace, instance, attempt, generation, node_id,
       domain_id, status, cpu_millis, memory_bytes, accelerators, exit_code, signal, reason, pid, placed_at, started_at,
       ended_at, updated_at)
     SELECT * FROM jsonb_to_recordset($1::jsonb) AS r(allocation_id uuid, workload_id uuid, namespace text,
       instance int, attempt int, generation int, node_id uuid, domain_id text, status text, cpu_millis int,
       memory_bytes bigint, accelerators int, exit_code int, signal text, reason text, pid int, placed_at timestamptz,
       started_at timestamptz, ended_at timestamptz, updated_at timestamptz)
     ON CONFLICT (allocation_id) DO UPDATE SET status = EXCLUDED.status, exit_code = EXCLUDED.exit_code,
       signal = EXCLUDED.signal, reason = EXCLUDED.reason, pid = EXCLUDED.pid, started_at = EXCLUDED.started_at,
       ended_at = EXCLUDED.ended_at, updated_at = EXCLUDED.updated_at`,
    [JSON.stringify(rows)],
  );
}
