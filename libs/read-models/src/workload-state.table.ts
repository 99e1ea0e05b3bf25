import { type WorkloadSpec, z } from '@hcn/contracts';
import type { WorkloadState } from '@hcn/domain';
import { defineTable, selectList } from './table';

/**
 * Derived status of a workload, as the workload decider derives it (libs/domain workloadStatus), so lists agree with
 * a workload read from its stream: deleted; else the first instance status found of running, stopping, placed (shown
 * as starting), pending, unschedulable; else failed, lost, stopped; else completed.
 */
export const WORKLOAD_STATUSES = [
  'pending',
  'unschedulable',
  'starting',
  'running',
  'stopping',
  'completed',
  'failed',
  'lost',
  'stopped',
  'deleted',
  'unknown',
] as const;

/** Derived status of a workload (see WORKLOAD_STATUSES). */
export type WorkloadStatus = (typeof WORKLOAD_STATUSES)[number];

/** Status of one instance (replica index) of a workload. */
export const INSTANCE_STATUSES = [
  'pending',
  'unschedulable',
  'placed',
  'running',
  'stopping',
  'completed',
  'failed',
  'stopped',
  'lost',
  'unknown',
] as const;

/** Status of one instance (replica index) of a workload. */
export type InstanceStatus = (typeof INSTANCE_STATUSES)[number];

/** One instance of a workload as kept in workload_state.instances (its current or last allocation). */
export const workloadInstanceSchema = z
  .object({
    instance: z.number().int(),
    attempt: z.number().int(),
    status: z.enum(INSTANCE_STATUSES),
    allocationId: z.string().nullable(),
    nodeId: z.string().nullable(),
    retries: z.number().int().describe('restarts the restart policy has used so far'),
    replace: z
      .boolean()
      .describe(
        'a fresh allocation replaces the current one once it has ended (restart request, spec change)',
      ),
    ready: z
      .boolean()
      .optional()
      .describe('services only: its allocation counts as an endpoint (running, readiness probe passing)'),
  })
  .meta({ id: 'WorkloadInstance' });

/** One instance of a workload as kept in workload_state.instances (see workloadInstanceSchema). */
export type WorkloadInstance = z.output<typeof workloadInstanceSchema>;

/** The workload decider's folded state as workload_state.state keeps it: all but the spec (in its own column). */
export type StoredWorkloadState = Omit<WorkloadState, 'spec'>;

/** One workload_state row (projection of workload-* streams), times as ISO-8601 text. */
export interface WorkloadStateRecord {
  workload_id: string;
  namespace: string;
  name: string;
  type: string;
  /** See WORKLOAD_STATUSES. */
  status: WorkloadStatus;
  priority: number;
  replicas: number;
  generation: number;
  /** The current spec (defaults applied). */
  spec: WorkloadSpec;
  /** Instances 0..replicas-1, plus higher ones that still run after a scale-down. */
  instances: WorkloadInstance[];
  /** Delegation hops recorded (all instances and attempts). */
  hops: number;
  stop_requested: boolean;
  deleted: boolean;
  /** The domain's folded state, from which every other column is mapped (the projection evolves it). */
  state: StoredWorkloadState;
  submitted_at: string;
  /** Recorded-at of the last event applied (monotonic). */
  updated_at: string;
  /** Revision in the workload stream of the last event applied (a replayed event changes nothing). */
  last_revision: number;
}

/** The workload_state table: one row per workload (its indexes are in the migrations). */
export const WORKLOAD_STATE = defineTable<WorkloadStateRecord>({
  name: 'workload_state',
  key: 'workload_id',
  columns: {
    workload_id: 'uuid',
    namespace: 'text',
    name: 'text',
    type: 'text',
    status: 'text',
    priority: 'int',
    replicas: 'int',
    generation: 'int',
    spec: 'jsonb',
    instances: 'jsonb',
    hops: 'int',
    stop_requested: 'boolean',
    deleted: 'boolean',
    state: 'jsonb',
    submitted_at: 'timestamptz',
    updated_at: 'timestamptz',
    last_revision: 'int',
  },
});

/** A workload as lists show it (no spec: commands and environment stay in the single-workload view). */
export const workloadListItemSchema = z
  .object({
    workloadId: z.string(),
    namespace: z.string(),
    name: z.string(),
    type: z.string().describe('job, service, model, ...'),
    status: z.enum(WORKLOAD_STATUSES),
    priority: z.number().int(),
    replicas: z.number().int(),
    generation: z.number().int(),
    resources: z.object({
      cpuMillis: z.number().int(),
      memoryBytes: z.number().int(),
      accelerators: z.number().int(),
    }),
    instances: z.array(workloadInstanceSchema),
    hops: z.number().int().describe('delegation hops recorded (all instances and attempts)'),
    stopRequested: z.boolean(),
    deleted: z.boolean(),
    submittedAt: z.string().describe('ISO-8601'),
    updatedAt: z.string().describe('ISO-8601'),
  })
  .meta({ id: 'WorkloadListItem' });

/** A workload as lists show it (see workloadListItemSchema). */
export type WorkloadListItem = z.output<typeof workloadListItemSchema>;

/** The workload_state columns a list reads, with `resources` taken out of the spec. */
export type WorkloadListRecord = Omit<WorkloadStateRecord, 'spec' | 'state' | 'last_revision'> & {
  resources: { cpuMillis: number; memoryBytes: number; accelerators?: number };
};

/** The SELECT list of a workload list (see WorkloadListRecord). */
export const WORKLOAD_LIST_COLUMNS = `${selectList(WORKLOAD_STATE, [
  'workload_id',
  'namespace',
  'name',
  'type',
  'status',
  'priority',
  'replicas',
  'generation',
  'instances',
  'hops',
  'stop_requested',
  'deleted',
  'submitted_at',
  'updated_at',
])}, spec->'resources' AS resources`;

/** Maps a workload_state row read with WORKLOAD_LIST_COLUMNS to the list item the API answers. */
export function workloadListItem(row: WorkloadListRecord): WorkloadListItem {
  return {
    workloadId: row.workload_id,
    namespace: row.namespace,
    name: row.name,
    type: row.type,
    status: row.status,
    priority: row.priority,
    replicas: row.replicas,
    generation: row.generation,
    resources: { ...row.resources, accelerators: row.resources.accelerators ?? 0 },
    instances: row.instances,
    hops: row.hops,
    stopRequested: row.stop_requested,
    deleted: row.deleted,
    submittedAt: new Date(row.submitted_at).toISOString(),
    updatedAt: new Date(row.updated_at).toISOString(),
  };
}
