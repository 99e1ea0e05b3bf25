import { ACTIVE_ALLOCATION } from '@hcn/domain';
import { NODE_RUNTIME, NodeRuntimeError, NodeRuntimeRecord, selectList, upsertRows } from '@hcn/read-models';
import type { EntityManager } from 'typeorm';
import { later } from './later';
import { NodeRuntimeChange, evolveLastError } from './node-runtime.fold';

const RUNTIME_READ = selectList(NODE_RUNTIME);

function errorOf(row: NodeRuntimeRecord | undefined): NodeRuntimeError | null {
  if (!row || row.last_error_at === null) return null;
  return {
    allocationId: row.last_error_allocation_id as string,
    workloadId: row.last_error_workload_id as string,
    reason: row.last_error_reason as string,
    at: row.last_error_at,
  };
}

/** What the API shows of a row (times compared as instants: stored ones read back with microseconds). */
function shown(row: NodeRuntimeRecord | undefined): string {
  if (!row) return '';
  const at = row.last_error_at === null ? null : Date.parse(row.last_error_at);
  return JSON.stringify([row.active_instances, row.last_error_allocation_id, row.last_error_reason, at]);
}

/**
 * Writes the node_runtime rows of the nodes a batch's changes name (after its allocation_state rows are written, in
 * the same transaction): the active count is counted again from allocation_state, the last error follows the
 * changes in log order. Returns the nodes whose runtime changed, for the change feed.
 */
export async function saveNodeRuntime(
  tx: EntityManager,
  changes: readonly NodeRuntimeChange[],
): Promise<string[]> {
  if (changes.length === 0) return [];
  const nodeIds = [...new Set(changes.map((c) => c.nodeId))];
  const [stored, counts]: [NodeRuntimeRecord[], Array<{ node_id: string; n: number }>] = await Promise.all([
    tx.query(`SELECT ${RUNTIME_READ} FROM node_runtime WHERE node_id = ANY($1::uuid[])`, [nodeIds]),
    tx.query(
      `SELECT node_id, count(*)::int AS n FROM allocation_state
       WHERE node_id = ANY($1::uuid[]) AND status = ANY($2::text[]) GROUP BY node_id`,
      [nodeIds, [...ACTIVE_ALLOCATION]],
    ),
  ]);
  const before = new Map(stored.map((row) => [row.node_id, row]));
  const active = new Map(counts.map((row) => [row.node_id, row.n]));
  const errors = new Map(nodeIds.map((id) => [id, errorOf(before.get(id))]));
  const updated = new Map<string, string>();
  for (const change of changes) {
    errors.set(change.nodeId, evolveLastError(errors.get(change.nodeId) ?? null, change));
    const since = updated.get(change.nodeId) ?? before.get(change.nodeId)?.updated_at ?? change.at;
    updated.set(change.nodeId, later(since, change.at));
  }
  const rows = nodeIds.map((nodeId): NodeRuntimeRecord => {
    const error = errors.get(nodeId) ?? null;
    return {
      node_id: nodeId,
      active_instances: active.get(nodeId) ?? 0,
      last_error_allocation_id: error?.allocationId ?? null,
      last_error_workload_id: error?.workloadId ?? null,
      last_error_reason: error?.reason ?? null,
      last_error_at: error?.at ?? null,
      updated_at: updated.get(nodeId) as string,
    };
  });
  await upsertRows(tx, NODE_RUNTIME, rows);
  return rows.filter((row) => shown(before.get(row.node_id)) !== shown(row)).map((row) => row.node_id);
}
