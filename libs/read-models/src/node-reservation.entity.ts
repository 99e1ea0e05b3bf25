import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * Capacity set aside on a node for one allocation (CapacityReserved). A release keeps the row as a tombstone
 * (`released`), so a replayed reservation cannot count again.
 */
@Entity({ name: 'node_reservation' })
export class NodeReservationRow {
  @PrimaryColumn({ type: 'uuid', name: 'allocation_id' })
  allocationId!: string;

  @Column({ type: 'uuid', name: 'node_id' })
  nodeId!: string;

  @Column({ type: 'uuid', name: 'workload_id', nullable: true })
  workloadId!: string | null;

  @Column({ type: 'bigint', name: 'cpu_millis' })
  cpuMillis!: string;

  @Column({ type: 'bigint', name: 'memory_bytes' })
  memoryBytes!: string;

  @Column({ type: 'int' })
  accelerators!: number;

  @Column({ type: 'boolean' })
  released!: boolean;
}
