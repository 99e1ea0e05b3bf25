import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * Per-domain counts and capacity, derived from node_state in the same transaction, plus the domain's definition
 * (DomainDefined / DomainUpdated). A row exists once the domain is defined or has a node.
 */
@Entity({ name: 'domain_summary' })
export class DomainSummaryRow {
  @PrimaryColumn({ type: 'text', name: 'domain_id' })
  domainId!: string;

  @Column({ type: 'int', name: 'nodes_online' })
  nodesOnline!: number;

  @Column({ type: 'int', name: 'nodes_offline' })
  nodesOffline!: number;

  @Column({ type: 'int', name: 'nodes_draining' })
  nodesDraining!: number;

  @Column({ type: 'int', name: 'cpu_cores_total' })
  cpuCoresTotal!: number;

  /** Millicores not in use on online, not draining nodes (each node's cores x (1 - usage), to a millicore). */
  @Column({ type: 'bigint', name: 'cpu_millis_available' })
  cpuMillisAvailable!: string;

  @Column({ type: 'bigint', name: 'memory_bytes_total' })
  memoryBytesTotal!: string;

  @Column({ type: 'bigint', name: 'memory_bytes_available' })
  memoryBytesAvailable!: string;

  /** Resource tags present in the domain (architectures, OSes, label keys=values). */
  @Column({ type: 'jsonb', name: 'resource_tags' })
  resourceTags!: string[];

  /** Accelerator devices on the domain's nodes that are not deregistered. */
  @Column({ type: 'int', name: 'accelerators_total' })
  acceleratorsTotal!: number;

  /** Capacity reserved for allocations on the domain's nodes that are not deregistered. */
  @Column({ type: 'bigint', name: 'reserved_cpu_millis' })
  reservedCpuMillis!: string;

  @Column({ type: 'bigint', name: 'reserved_memory_bytes' })
  reservedMemoryBytes!: string;

  @Column({ type: 'int', name: 'reserved_accelerators' })
  reservedAccelerators!: number;

  /** CPU of the domain's nodes that are not deregistered, in millis (cpu_cores_total x 1000). */
  @Column({ type: 'bigint', name: 'cpu_millis_total' })
  cpuMillisTotal!: string;

  /** What online, not draining nodes have left after their reservations (never below zero per node). */
  @Column({ type: 'bigint', name: 'cpu_millis_allocatable' })
  cpuMillisAllocatable!: string;

  /** Memory online, not draining nodes have left after their reservations. */
  @Column({ type: 'bigint', name: 'memory_bytes_allocatable' })
  memoryBytesAllocatable!: string;

  /** Accelerators online, not draining nodes have left after their reservations. */
  @Column({ type: 'int', name: 'accelerators_allocatable' })
  acceleratorsAllocatable!: number;

  /** True once a DomainDefined was applied; the columns below are null (labels empty) before. */
  @Column({ type: 'boolean' })
  defined!: boolean;

  /** Revision in the domain stream of the definition applied (a replayed event changes nothing). */
  @Column({ type: 'int', name: 'definition_revision', nullable: true })
  definitionRevision!: number | null;

  @Column({ type: 'text', name: 'parent_id', nullable: true })
  parentId!: string | null;

  @Column({ type: 'text', nullable: true })
  region!: string | null;

  @Column({ type: 'jsonb' })
  labels!: Record<string, string>;

  /** Scheduling policy the domain names. */
  @Column({ type: 'text', nullable: true })
  policy!: string | null;

  @Column({ type: 'uuid', name: 'head_node_id', nullable: true })
  headNodeId!: string | null;
}
