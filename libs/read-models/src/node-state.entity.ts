import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/** One row per node: registration, status and latest usage (projection of node-* and heartbeat-* streams). */
@Entity({ name: 'node_state' })
@Index(['domainId', 'status'])
export class NodeStateRow {
  @PrimaryColumn({ type: 'uuid', name: 'node_id' })
  nodeId!: string;

  @Column({ type: 'text', name: 'domain_id' })
  domainId!: string;

  @Column({ type: 'text' })
  hostname!: string;

  @Column({ type: 'text' })
  arch!: string;

  @Column({ type: 'text' })
  os!: string;

  @Column({ type: 'int', name: 'cpu_cores' })
  cpuCores!: number;

  @Column({ type: 'bigint', name: 'memory_bytes' })
  memoryBytes!: string;

  @Column({ type: 'bigint', name: 'disk_bytes' })
  diskBytes!: string;

  /** Schedulable accelerator devices (from the registration). */
  @Column({ type: 'int' })
  accelerators!: number;

  /** The accelerator devices of the registration (vendor, model, memory, health, ...). */
  @Column({ type: 'jsonb' })
  devices!: unknown[];

  @Column({ type: 'jsonb' })
  labels!: Record<string, string>;

  @Column({ type: 'boolean', name: 'is_head' })
  isHead!: boolean;

  @Column({ type: 'text', name: 'agent_version' })
  agentVersion!: string;

  /** online | offline | deregistered */
  @Column({ type: 'text' })
  status!: string;

  @Column({ type: 'boolean' })
  draining!: boolean;

  @Column({ type: 'boolean', name: 'stop_requested' })
  stopRequested!: boolean;

  @Column({ type: 'timestamptz', name: 'registered_at' })
  registeredAt!: Date;

  @Column({ type: 'timestamptz', name: 'last_seen_at', nullable: true })
  lastSeenAt!: Date | null;

  @Column({ type: 'double precision', name: 'cpu_usage', nullable: true })
  cpuUsage!: number | null;

  @Column({ type: 'bigint', name: 'memory_used_bytes', nullable: true })
  memoryUsedBytes!: string | null;

  @Column({ type: 'bigint', name: 'disk_used_bytes', nullable: true })
  diskUsedBytes!: string | null;

  @Column({ type: 'int', name: 'last_heartbeat_seq', nullable: true })
  lastHeartbeatSeq!: number | null;

  /** CPU reserved for allocations (CapacityReserved minus CapacityReleased), in millicores. */
  @Column({ type: 'bigint', name: 'reserved_cpu_millis' })
  reservedCpuMillis!: string;

  @Column({ type: 'bigint', name: 'reserved_memory_bytes' })
  reservedMemoryBytes!: string;

  @Column({ type: 'int', name: 'reserved_accelerators' })
  reservedAccelerators!: number;

  /** Recorded-at of the last event applied (drives lag metrics). */
  @Column({ type: 'timestamptz', name: 'updated_at' })
  updatedAt!: Date;
}
