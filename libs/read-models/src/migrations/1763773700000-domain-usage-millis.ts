import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Unused CPU per domain kept in whole millicores (`cpu_millis_available`, each node's share rounded to a millicore),
 * so heartbeats can move it by exact integer deltas instead of re-aggregating every node of the domain. It replaces
 * `cpu_cores_available` (cores, a float summed in node order), which queries now derive from it. Existing rows are
 * filled from node_state.
 */
export class DomainUsageMillis1763773700000 implements MigrationInterface {
  name = 'DomainUsageMillis1763773700000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(
      `ALTER TABLE domain_summary ADD COLUMN cpu_millis_available bigint NOT NULL DEFAULT 0`,
    );
    await runner.query(`UPDATE domain_summary d SET cpu_millis_available = s.millis
      FROM (SELECT n.domain_id,
              coalesce(sum(round(n.cpu_cores * (1 - coalesce(n.cpu_usage, 0)) * 1000)::bigint)
                FILTER (WHERE n.status = 'online' AND NOT n.draining), 0) AS millis
            FROM node_state n GROUP BY n.domain_id) s
      WHERE d.domain_id = s.domain_id`);
    await runner.query(`ALTER TABLE domain_summary DROP COLUMN cpu_cores_available`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(
      `ALTER TABLE domain_summary ADD COLUMN cpu_cores_available double precision NOT NULL DEFAULT 0`,
    );
    await runner.query(`UPDATE domain_summary SET cpu_cores_available = cpu_millis_available / 1000.0`);
    await runner.query(`ALTER TABLE domain_summary DROP COLUMN cpu_millis_available`);
  }
}
