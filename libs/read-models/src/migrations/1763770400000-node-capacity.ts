import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Capacity reservations on nodes (node_reservation, reserved totals on node_state and domain_summary), accelerator
 * counts, and the domain tree definition on domain_summary.
 */
export class NodeCapacity1763770400000 implements MigrationInterface {
  name = 'NodeCapacity1763770400000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`ALTER TABLE node_state
      ADD COLUMN accelerators int NOT NULL DEFAULT 0,
      ADD COLUMN reserved_cpu_millis bigint NOT NULL DEFAULT 0,
      ADD COLUMN reserved_memory_bytes bigint NOT NULL DEFAULT 0,
      ADD COLUMN reserved_accelerators int NOT NULL DEFAULT 0`);
    await runner.query(`CREATE TABLE node_reservation (
      allocation_id uuid PRIMARY KEY,
      node_id uuid NOT NULL,
      workload_id uuid,
      cpu_millis bigint NOT NULL,
      memory_bytes bigint NOT NULL,
      accelerators int NOT NULL,
      released boolean NOT NULL
    )`);
    await runner.query('CREATE INDEX node_reservation_node ON node_reservation (node_id) WHERE NOT released');
    await runner.query(`ALTER TABLE domain_summary
      ADD COLUMN accelerators_total int NOT NULL DEFAULT 0,
      ADD COLUMN reserved_cpu_millis bigint NOT NULL DEFAULT 0,
      ADD COLUMN reserved_memory_bytes bigint NOT NULL DEFAULT 0,
      ADD COLUMN reserved_accelerators int NOT NULL DEFAULT 0,
      ADD COLUMN defined boolean NOT NULL DEFAULT false,
      ADD COLUMN definition_revision int,
      ADD COLUMN parent_id text,
      ADD COLUMN region text,
      ADD COLUMN labels jsonb NOT NULL DEFAULT '{}'::jsonb,
      ADD COLUMN policy text,
      ADD COLUMN head_node_id uuid`);
    await runner.query('CREATE INDEX domain_summary_parent ON domain_summary (parent_id)');
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query('DROP INDEX domain_summary_parent');
    await runner.query(`ALTER TABLE domain_summary
      DROP COLUMN accelerators_total, DROP COLUMN reserved_cpu_millis, DROP COLUMN reserved_memory_bytes,
      DROP COLUMN reserved_accelerators, DROP COLUMN defined, DROP COLUMN definition_revision, DROP COLUMN parent_id,
      DROP COLUMN region, DROP COLUMN labels, DROP COLUMN policy, DROP COLUMN head_node_id`);
    await runner.query('DROP TABLE node_reservation');
    await runner.query(`ALTER TABLE node_state
      DROP COLUMN accelerators, DROP COLUMN reserved_cpu_millis, DROP COLUMN reserved_memory_bytes,
      DROP COLUMN reserved_accelerators`);
  }
}
