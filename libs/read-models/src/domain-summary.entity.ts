import { Column, Entity, PrimaryColumn } from 'typeorm';

/** Per-domain counts and capacity, derived from node_state in the same transaction. */
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

  /** Cores not in use on online nodes (cores x (1 - usage)). */
  @Column({ type: 'double precision', name: 'cpu_cores_available' })
  cpuCoresAvailable!: number;

  @Column({ type: 'bigint', name: 'memory_bytes_total' })
  memoryBytesTotal!: string;

  @Column({ type: 'bigint', name: 'memory_bytes_available' })
  memoryBytesAvailable!: string;

  /** Resource tags present in the domain (architectures, OSes, label keys=values). */
  @Column({ type: 'jsonb', name: 'resource_tags' })
  resourceTags!: string[];
}
