import type { WorkloadSpec } from '@hcn/contracts';
import { AllocationView, InstanceView, WorkloadState, workloadStatus } from '@hcn/domain';
import {
  ALLOCATION_STATE,
  AllocationStateRecord,
  WORKLOAD_STATE,
  WorkloadInstance,
  WorkloadStateRecord,
  WorkloadStatus,
  selectList,
  upsertRows,
} from '@hcn/read-models';
import type { EntityManager } from 'typeorm';
import type { AllocationFacts, FoldedWorkload, WorkloadBook } from './workloads.fold';

/** An instance as workload_state.instances lists it: the domain's, with its allocation's node and replacement. */
function instanceRecord(state: WorkloadState, instance: InstanceView): WorkloadInstance {
  const allocation = instance.allocationId ? state.allocations[instance.allocationId] : undefined;
  return {
    instance: instance.instance,
    attempt: instance.attempt,
    status: instance.status,
    allocationId: instance.allocationId ?? null,
    nodeId: allocation?.nodeId ?? null,
    retries: instance.retries,
    replace: allocation?.replace ?? false,
    ...(allocation?.ready === undefined ? {} : { ready: allocation.ready }),
  };
}

/** The workload_state row of a folded workload: every column mapped from the domain's state (status included). */
export function workloadRecord(folded: FoldedWorkload): WorkloadStateRecord {
  const { spec, ...state } = folded.state;
  if (!spec || !state.workloadId) throw new Error('A workload row needs a submitted workload');
  return {
    workload_id: state.workloadId,
    namespace: spec.namespace,
    name: spec.name,
    type: spec.type,
    status: workloadStatus(folded.state) as WorkloadStatus,
    priority: spec.priority,
    replicas: spec.replicas,
    generation: state.generation,
    spec,
    instances: state.instances.map((i) => instanceRecord(folded.state, i)),
    hops: state.hops,
    stop_requested: state.desired === 'stopped',
    deleted: state.deleted,
    state,
    submitted_at: folded.submittedAt,
    updated_at: folded.updatedAt,
    last_revision: folded.lastRevision,
  };
}

/**
 * The allocation_state row of one of a workload's allocations: its lifecycle (status, exit code, reason) from the
 * domain's view, times, pid and signal from its events. A stopped allocation's row has no reason (the domain's
 * "ended by ..." is not shown; the signal says how it ended).
 */
export function allocationRecord(
  workloadId: string,
  namespace: string,
  view: AllocationView,
  facts: AllocationFacts,
): AllocationStateRecord {
  return {
    allocation_id: view.allocationId,
    workload_id: workloadId,
    namespace,
    instance: view.instance,
    attempt: view.attempt,
    generation: view.generation,
    node_id: view.nodeId,
    domain_id: view.domainId,
    status: view.status,
    cpu_millis: view.resources.cpuMillis,
    memory_bytes: view.resources.memoryBytes,
    accelerators: view.resources.accelerators,
    exit_code: view.exitCode ?? null,
    signal: facts.signal,
    reason: view.status === 'stopped' ? null : (view.reason ?? null),
    pid: facts.pid,
    placed_at: facts.placedAt,
    started_at: facts.startedAt,
    ended_at: facts.endedAt,
    updated_at: facts.updatedAt,
  };
}

type StoredWorkload = Pick<
  WorkloadStateRecord,
  'state' | 'spec' | 'submitted_at' | 'updated_at' | 'last_revision'
>;
type StoredFacts = Pick<
  AllocationStateRecord,
  'allocation_id' | 'placed_at' | 'started_at' | 'ended_at' | 'signal' | 'pid' | 'updated_at'
>;

const WORKLOAD_READ = selectList(WORKLOAD_STATE, [
  'state',
  'spec',
  'submitted_at',
  'updated_at',
  'last_revision',
]);
const FACTS_READ = selectList(ALLOCATION_STATE, [
  'allocation_id',
  'placed_at',
  'started_at',
  'ended_at',
  'signal',
  'pid',
  'updated_at',
]);

/** Loads the folded workloads and the allocations' facts a batch refers to into a book. */
export async function loadBook(
  tx: EntityManager,
  book: WorkloadBook,
  workloadIds: readonly string[],
  allocationIds: readonly string[],
): Promise<void> {
  const [workloads, allocations]: [StoredWorkload[], StoredFacts[]] = await Promise.all([
    tx.query(`SELECT ${WORKLOAD_READ} FROM workload_state WHERE workload_id = ANY($1::uuid[])`, [
      workloadIds,
    ]),
    allocationIds.length === 0
      ? Promise.resolve([])
      : tx.query(`SELECT ${FACTS_READ} FROM allocation_state WHERE allocation_id = ANY($1::uuid[])`, [
          allocationIds,
        ]),
  ]);
  for (const row of workloads) {
    const state: WorkloadState = { ...row.state, spec: row.spec as WorkloadSpec };
    const folded = {
      state,
      submittedAt: row.submitted_at,
      updatedAt: row.updated_at,
      lastRevision: row.last_revision,
    };
    book.workloads.set(state.workloadId as string, folded);
  }
  for (const row of allocations) {
    const { allocation_id, placed_at, started_at, ended_at, signal, pid, updated_at } = row;
    book.allocations.set(allocation_id, {
      placedAt: placed_at,
      startedAt: started_at,
      endedAt: ended_at,
      signal,
      pid,
      updatedAt: updated_at,
    });
  }
}

/** Writes the rows of the given workloads and of the allocations the batch changed (one statement each). */
export async function saveBook(
  tx: EntityManager,
  book: WorkloadBook,
  workloadIds: Iterable<string>,
): Promise<void> {
  const workloads = [...workloadIds].map((id) => book.workloads.get(id) as FoldedWorkload);
  const allocations = [...book.changedAllocations].map(([allocationId, workloadId]) => {
    const { state } = book.workloads.get(workloadId) as FoldedWorkload;
    const facts = book.allocations.get(allocationId) as AllocationFacts;
    const namespace = (state.spec as WorkloadSpec).namespace;
    return allocationRecord(workloadId, namespace, state.allocations[allocationId], facts);
  });
  await upsertRows(tx, WORKLOAD_STATE, workloads.map(workloadRecord));
  await upsertRows(tx, ALLOCATION_STATE, allocations);
}
