import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

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
] as const;

/** Status of one instance (replica index) of a workload. */
export type InstanceStatus = (typeof INSTANCE_STATUSES)[number];

/** One instance of a workload as kept in workload_state.instances (its current or last allocation). */
export interface WorkloadInstance {
  instance: number;
  attempt: number;
  status: InstanceStatus;
  allocationId: string | null;
  nodeId: string | null;
  /** Restarts the restart policy has used so far. */
  retries: number;
  /** A fresh allocation replaces the current one once it has ended (after a restart request or a spec change). */
  replace: boolean;
}

/** One row per workload: its spec, instances and derived status (projection of workload-* streams). */
@Entity({ name: 'workload_state' })
@Index(['namespace', 'status'])
@Index(['submittedAt', 'workloadId'])
export class WorkloadStateRow {
  @PrimaryColumn({ type: 'uuid', name: 'workload_id' })
  workloadId!: string;

  @Column({ type: 'text' })
  namespace!: string;

  @Column({ type: 'text' })
  name!: string;

  @Column({ type: 'text' })
  type!: string;

  /** See WORKLOAD_STATUSES. */
  @Column({ type: 'text' })
  status!: string;

  @Column({ type: 'int' })
  priority!: number;

  @Column({ type: 'int' })
  replicas!: number;

  @Column({ type: 'int' })
  generation!: number;

  /** The current spec (defaults applied). */
  @Column({ type: 'jsonb' })
  spec!: Record<string, unknown>;

  /** Instances 0..replicas-1, plus higher ones that still run after a scale-down. */
  @Column({ type: 'jsonb' })
  instances!: WorkloadInstance[];

  /** Delegation hops recorded (all instances and attempts). */
  @Column({ type: 'int' })
  hops!: number;

  @Column({ type: 'boolean', name: 'stop_requested' })
  stopRequested!: boolean;

  @Column({ type: 'boolean' })
  deleted!: boolean;

  @Column({ type: 'timestamptz', name: 'submitted_at' })
  submittedAt!: Date;

  /** Recorded-at of the last event applied (monotonic). */
  @Column({ type: 'timestamptz', name: 'updated_at' })
  updatedAt!: Date;

  /** Revision in the workload stream of the last event applied (a replayed event changes nothing). */
  @Column({ type: 'int', name: 'last_revision' })
  lastRevision!: number;
}
