import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * node_runtime: each node's runtime state (running / error / idle, generated from its active allocations and the
 * failure that ended its most recent one), kept by the workloads projection with allocation_state. Existing
 * deployments are filled from allocation_state: active allocations exactly; the last error approximated from the
 * times the rows hold (the latest ended allocation, losses with the node going offline or being deregistered left
 * out, failed or lost and no placement on the node since). A rebuild replays it exactly from the log.
 */
export class NodeRuntime1763774500000 implements MigrationInterface {
  name = 'NodeRuntime1763774500000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`CREATE TABLE node_runtime (
      node_id uuid PRIMARY KEY,
      active_instances int NOT NULL,
      last_error_allocation_id uuid,
      last_error_workload_id uuid,
      last_error_reason text,
      last_error_at timestamptz,
      updated_at timestamptz NOT NULL,
      state text NOT NULL GENERATED ALWAYS AS (
        CASE WHEN active_instances > 0 THEN 'running' WHEN last_error_at IS NOT NULL THEN 'error' ELSE 'idle' END
      ) STORED
    )`);
    await runner.query('CREATE INDEX node_runtime_state ON node_runtime (state)');
    await runner.query(`WITH outcomes AS (
        SELECT DISTINCT ON (node_id) node_id, allocation_id, workload_id, status, reason, ended_at
        FROM allocation_state
        WHERE ended_at IS NOT NULL
          AND NOT (status = 'lost' AND (reason LIKE 'node % went offline' OR reason LIKE 'node % was deregistered'))
        ORDER BY node_id, ended_at DESC, allocation_id
      ), nodes AS (
        SELECT node_id, count(*) FILTER (WHERE status IN ('placed', 'running', 'stopping'))::int AS active,
          max(placed_at) AS last_placed, max(updated_at) AS updated
        FROM allocation_state GROUP BY node_id
      ), failures AS (
        SELECT o.* FROM outcomes o JOIN nodes n USING (node_id)
        WHERE o.status IN ('failed', 'lost') AND n.last_placed <= o.ended_at
      )
      INSERT INTO node_runtime (node_id, active_instances, last_error_allocation_id, last_error_workload_id,
        last_error_reason, last_error_at, updated_at)
      SELECT n.node_id, n.active, f.allocation_id, f.workload_id, coalesce(f.reason, f.status), f.ended_at, n.updated
      FROM nodes n LEFT JOIN failures f USING (node_id)`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query('DROP TABLE node_runtime');
  }
}
