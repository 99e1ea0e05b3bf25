import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/** Limits and usage of one namespace (projection of quota-* streams); a missing limit means unlimited. */
@Entity({ name: 'quota_usage' })
export class QuotaUsageRow {
  @PrimaryColumn({ type: 'text' })
  namespace!: string;

  /** `{ cpuMillis?, memoryBytes?, accelerators?, workloads? }` from the last QuotaSet. */
  @Column({ type: 'jsonb' })
  limits!: Record<string, number>;

  @Column({ type: 'bigint', name: 'used_cpu_millis' })
  usedCpuMillis!: string;

  @Column({ type: 'bigint', name: 'used_memory_bytes' })
  usedMemoryBytes!: string;

  @Column({ type: 'int', name: 'used_accelerators' })
  usedAccelerators!: number;

  /** Workloads holding quota. */
  @Column({ type: 'int', name: 'used_workloads' })
  usedWorkloads!: number;

  /** Revision in the quota stream of the last event applied (a replayed event changes nothing). */
  @Column({ type: 'int', name: 'last_revision' })
  lastRevision!: number;

  @Column({ type: 'timestamptz', name: 'updated_at' })
  updatedAt!: Date;
}

/** What one workload holds against its namespace's quota (the sum of these rows is quota_usage.used_*). */
@Entity({ name: 'quota_hold' })
@Index(['namespace'])
export class QuotaHoldRow {
  @PrimaryColumn({ type: 'uuid', name: 'workload_id' })
  workloadId!: string;

  @Column({ type: 'text' })
  namespace!: string;

  @Column({ type: 'bigint', name: 'cpu_millis' })
  cpuMillis!: string;

  @Column({ type: 'bigint', name: 'memory_bytes' })
  memoryBytes!: string;

  @Column({ type: 'int' })
  accelerators!: number;
}
