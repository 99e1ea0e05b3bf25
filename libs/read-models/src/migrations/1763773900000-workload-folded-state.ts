import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * workload_state keeps the workload decider's folded state (`state`, all but the spec), which the projection evolves
 * with the domain's own evolve and maps to the other columns. Rows written before have none, so both workload
 * tables are emptied and the workloads projection's checkpoint removed: the projector replays it from the start.
 */
export class WorkloadFoldedState1763773900000 implements MigrationInterface {
  name = 'WorkloadFoldedState1763773900000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query('TRUNCATE workload_state, allocation_state');
    await runner.query(`DELETE FROM projection_checkpoints WHERE name = 'workloads'`);
    await runner.query('ALTER TABLE workload_state ADD COLUMN state jsonb NOT NULL');
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query('ALTER TABLE workload_state DROP COLUMN state');
  }
}
