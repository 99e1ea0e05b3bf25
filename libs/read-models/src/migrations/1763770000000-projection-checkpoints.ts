import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Creates the checkpoint table shared by all projections. */
export class ProjectionCheckpoints1763770000000 implements MigrationInterface {
  name = 'ProjectionCheckpoints1763770000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`CREATE TABLE projection_checkpoints (
      name text PRIMARY KEY,
      commit numeric NOT NULL,
      prepare numeric NOT NULL,
      events_applied bigint NOT NULL DEFAULT 0,
      updated_at timestamptz NOT NULL
    )`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query('DROP TABLE projection_checkpoints');
  }
}
