import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/** Status of an allocation: placed, running, stopping, then one terminal status. */
export const ALLOCATION_STATUSES = [
  'placed',
  'running',
  'stopping',
  'completed',
  'failed',
  'stopped',
  'lost',
] as const;

/** Status of an allocation. */
export type AllocationStatus = (typeof ALLOCATION_STATUSES)[number];

/** Allocation statuses after which nothing runs any more. */
export const TERMINAL_ALLOCATION_STATUSES: readonly AllocationStatus[] = [
  'completed',
  'failed',
  'stopped',
  'lost',
];

/** One row per allocation (an instance's attempt on a node), from the workload-* streams. */
@Entity({ name: 'allocation_state' })
@Index(['workloadId', 'instance', 'attempt'])
@Index(['nodeId', 'status'])
export class AllocationStateRow {
  @PrimaryColumn({ type: 'uuid', name: 'allocation_id' })
  allocationId!: string;

  @Column({ type: 'uuid', name: 'workload_id' })
  workloadId!: string;

  @Column({ type: 'text' })
  namespace!: string;

  @Column({ type: 'int' })
  instance!: number;

  @Column({ type: 'int' })
  attempt!: number;

  /** Spec generation the allocation runs. */
  @Column({ type: 'int' })
  generation!: number;

  @Column({ type: 'uuid', name: 'node_id' })
  nodeId!: string;

  @Column({ type: 'text', name: 'domain_id' })
  domainId!: string;

  /** See ALLOCATION_STATUSES. */
  @Column({ type: 'text' })
  status!: string;

  @Column({ type: 'int', name: 'cpu_millis' })
  cpuMillis!: number;

  @Column({ type: 'bigint', name: 'memory_bytes' })
  memoryBytes!: string;

  @Column({ type: 'int' })
  accelerators!: number;

  @Column({ type: 'int', name: 'exit_code', nullable: true })
  exitCode!: number | null;

  @Column({ type: 'text', nullable: true })
  signal!: string | null;

  /** Why it failed or was lost. */
  @Column({ type: 'text', nullable: true })
  reason!: string | null;

  @Column({ type: 'int', nullable: true })
  pid!: number | null;

  @Column({ type: 'timestamptz', name: 'placed_at' })
  placedAt!: Date;

  @Column({ type: 'timestamptz', name: 'started_at', nullable: true })
  startedAt!: Date | null;

  /** When it ended (reported by the agent; for a lost allocation, when the loss was recorded). */
  @Column({ type: 'timestamptz', name: 'ended_at', nullable: true })
  endedAt!: Date | null;

  @Column({ type: 'timestamptz', name: 'updated_at' })
  updatedAt!: Date;
}
