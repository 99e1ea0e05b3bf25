import { z } from '@hcn/contracts';
import { defineTable } from './table';

/** Status of an allocation: placed, running, stopping, then one terminal status (`rejected`: a site did not take it). */
export const ALLOCATION_STATUSES = [
  'placed',
  'running',
  'stopping',
  'completed',
  'failed',
  'stopped',
  'lost',
  'rejected',
  'unknown',
] as const;

/** Status of an allocation. */
export type AllocationStatus = (typeof ALLOCATION_STATUSES)[number];

/** Allocation statuses after which nothing runs any more. */
export const TERMINAL_ALLOCATION_STATUSES: readonly AllocationStatus[] = [
  'completed',
  'failed',
  'stopped',
  'lost',
  'rejected',
];

/** One allocation_state row (an instance's attempt on a node, from the workload-* streams), times as text. */
export interface AllocationStateRecord {
  allocation_id: string;
  workload_id: string;
  namespace: string;
  instance: number;
  attempt: number;
  /** Spec generation the allocation runs. */
  generation: number;
  node_id: string;
  domain_id: string;
  /** See ALLOCATION_STATUSES. */
  status: AllocationStatus;
  cpu_millis: number;
  /** A bigint: `pg` reads it as text. */
  memory_bytes: number | string;
  accelerators: number;
  exit_code: number | null;
  signal: string | null;
  /** Why it failed or was lost. */
  reason: string | null;
  pid: number | null;
  placed_at: string;
  started_at: string | null;
  /** When it ended (reported by the agent; for a lost allocation, when the loss was recorded). */
  ended_at: string | null;
  updated_at: string;
}

/** The allocation_state table: one row per allocation (its indexes are in the migrations). */
export const ALLOCATION_STATE = defineTable<AllocationStateRecord>({
  name: 'allocation_state',
  key: 'allocation_id',
  columns: {
    allocation_id: 'uuid',
    workload_id: 'uuid',
    namespace: 'text',
    instance: 'int',
    attempt: 'int',
    generation: 'int',
    node_id: 'uuid',
    domain_id: 'text',
    status: 'text',
    cpu_millis: 'int',
    memory_bytes: 'bigint',
    accelerators: 'int',
    exit_code: 'int',
    signal: 'text',
    reason: 'text',
    pid: 'int',
    placed_at: 'timestamptz',
    started_at: 'timestamptz',
    ended_at: 'timestamptz',
    updated_at: 'timestamptz',
  },
});

/** An allocation as the API shows it: the row's columns in camelCase (but updated_at), times as ISO-8601. */
export const allocationFieldsSchema = z
  .object({
    allocationId: z.string(),
    workloadId: z.string(),
    namespace: z.string(),
    instance: z.number().int(),
    attempt: z.number().int(),
    generation: z.number().int().describe('the spec generation it runs'),
    nodeId: z.string(),
    domainId: z.string(),
    status: z.enum(ALLOCATION_STATUSES),
    resources: z.object({
      cpuMillis: z.number().int(),
      memoryBytes: z.number().int(),
      accelerators: z.number().int(),
    }),
    exitCode: z.number().int().nullable(),
    signal: z.string().nullable(),
    reason: z.string().nullable().describe('why it failed or was lost'),
    pid: z.number().int().nullable(),
    placedAt: z.string(),
    startedAt: z.string().nullable(),
    endedAt: z.string().nullable(),
  })
  .meta({ id: 'Allocation' });

/** An allocation as the API shows it (see allocationFieldsSchema). */
export type AllocationFields = z.output<typeof allocationFieldsSchema>;

/** Maps one allocation_state row to the allocation the API answers. */
export function allocationFromRow(row: AllocationStateRecord): AllocationFields {
  const time = (v: string | null): string | null => (v === null ? null : new Date(v).toISOString());
  return {
    allocationId: row.allocation_id,
    workloadId: row.workload_id,
    namespace: row.namespace,
    instance: row.instance,
    attempt: row.attempt,
    generation: row.generation,
    nodeId: row.node_id,
    domainId: row.domain_id,
    status: row.status,
    resources: {
      cpuMillis: row.cpu_millis,
      memoryBytes: Number(row.memory_bytes),
      accelerators: row.accelerators,
    },
    exitCode: row.exit_code,
    signal: row.signal,
    reason: row.reason,
    pid: row.pid,
    placedAt: new Date(row.placed_at).toISOString(),
    startedAt: time(row.started_at),
    endedAt: time(row.ended_at),
  };
}
