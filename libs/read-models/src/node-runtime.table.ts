import { z } from '@hcn/contracts';
import { defineTable } from './table';

/**
 * Runtime state of a node, as IDM-GridCore reports it: `running` while at least one allocation on it is active
 * (placed, running or stopping); else `error` when its most recent outcome was a failure (see node_runtime);
 * else `idle`.
 */
export const NODE_RUNTIME_STATES = ['idle', 'running', 'error'] as const;

/** Runtime state of a node (see NODE_RUNTIME_STATES). */
export type NodeRuntimeState = (typeof NODE_RUNTIME_STATES)[number];

/**
 * One node_runtime row (projection of workload-* streams, written with allocation_state): the node's active
 * allocations and the failure that ended its most recent allocation, if that one failed. Its `state` column is
 * generated from these (running / error / idle); a node without a row is idle.
 */
export interface NodeRuntimeRecord {
  node_id: string;
  active_instances: number;
  last_error_allocation_id: string | null;
  last_error_workload_id: string | null;
  last_error_reason: string | null;
  last_error_at: string | null;
  updated_at: string;
}

/** The node_runtime table (its generated `state` column and index are in the migration). */
export const NODE_RUNTIME = defineTable<NodeRuntimeRecord>({
  name: 'node_runtime',
  key: 'node_id',
  columns: {
    node_id: 'uuid',
    active_instances: 'int',
    last_error_allocation_id: 'uuid',
    last_error_workload_id: 'uuid',
    last_error_reason: 'text',
    last_error_at: 'timestamptz',
    updated_at: 'timestamptz',
  },
});

/** The failure a node's runtime state shows. */
export const nodeRuntimeErrorSchema = z.object({
  allocationId: z.string(),
  workloadId: z.string(),
  reason: z.string(),
  at: z.string().describe('when the allocation ended (ISO-8601)'),
});

/** The failure a node's runtime state shows. */
export type NodeRuntimeError = z.output<typeof nodeRuntimeErrorSchema>;

/** A node's runtime as the API shows it. */
export const nodeRuntimeSchema = z
  .object({
    state: z.enum(NODE_RUNTIME_STATES),
    activeInstances: z.number().int().describe('allocations placed, running or stopping on the node'),
    lastError: nodeRuntimeErrorSchema
      .optional()
      .describe("the failure that ended the node's most recent allocation (kept while others run)"),
  })
  .meta({ id: 'NodeRuntime' });

/** A node's runtime as the API shows it (see nodeRuntimeSchema). */
export type NodeRuntime = z.output<typeof nodeRuntimeSchema>;

/** The columns a node query selects from node_runtime `r` (a node without a row reads as idle). */
export const NODE_RUNTIME_COLUMNS = `COALESCE(r.state, 'idle') AS runtime_state,
  COALESCE(r.active_instances, 0) AS runtime_active_instances, r.last_error_allocation_id AS runtime_error_allocation_id,
  r.last_error_workload_id AS runtime_error_workload_id, r.last_error_reason AS runtime_error_reason,
  r.last_error_at AS runtime_error_at`;

/** Maps the NODE_RUNTIME_COLUMNS of a row to the runtime the API answers. */
export function nodeRuntimeFromRow(row: Record<string, unknown>): NodeRuntime {
  const runtime: NodeRuntime = {
    state: row.runtime_state as NodeRuntimeState,
    activeInstances: Number(row.runtime_active_instances),
  };
  if (row.runtime_error_at === null || row.runtime_error_at === undefined) return runtime;
  return {
    ...runtime,
    lastError: {
      allocationId: row.runtime_error_allocation_id as string,
      workloadId: row.runtime_error_workload_id as string,
      reason: row.runtime_error_reason as string,
      at: new Date(row.runtime_error_at as string).toISOString(),
    },
  };
}
