import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Allocatable capacity per domain: what the schedulable (online, not draining) nodes have left after their
 * reservations, per resource (CPU millis, memory bytes, accelerators), and the CPU total in millis. Existing rows are
 * filled from node_state, as the projection computes them.
 */
export class DomainAllocatable1763773600000 implements MigrationInterface {
  name = 'DomainAllocatable1763773600000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`ALTER TABLE domain_summary
      ADD COLUMN cpu_millis_total bigint NOT NULL DEFAULT 0,
      ADD COLUMN cpu_millis_allocatable bigint NOT NULL DEFAULT 0,
      ADD COLUMN memory_bytes_allocatable bigint NOT NULL DEFAULT 0,
      ADD COLUMN accelerators_allocatable int NOT NULL DEFAULT 0`);
    await runner.query(`UPDATE domain_summary d SET cpu_millis_total = s.cpu_total,
        cpu_millis_allocatable = s.cpu, memory_bytes_allocatable = s.memory, accelerators_allocatable = s.accelerators
      FROM (SELECT n.domain_id,
              coalesce(sum(n.cpu_cores::bigint * 1000) FILTER (WHERE n.status <> 'deregistered'), 0) AS cpu_total,
              coalesce(sum(GREATEST(n.cpu_cores::bigint * 1000 - n.reserved_cpu_millis, 0)) FILTER (WHERE u), 0) AS cpu,
              coalesce(sum(GREATEST(n.memory_bytes - n.reserved_memory_bytes, 0)) FILTER (WHERE u), 0) AS memory,
              coalesce(sum(GREATEST(n.accelerators - n.reserved_accelerators, 0)) FILTER (WHERE u), 0) AS accelerators
            FROM (SELECT *, status = 'online' AND NOT draining AS u FROM node_state) n GROUP BY n.domain_id) s
      WHERE d.domain_id = s.domain_id`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`ALTER TABLE domain_summary DROP COLUMN cpu_millis_total, DROP COLUMN cpu_millis_allocatable,
      DROP COLUMN memory_bytes_allocatable, DROP COLUMN accelerators_allocatable`);
  }
}
