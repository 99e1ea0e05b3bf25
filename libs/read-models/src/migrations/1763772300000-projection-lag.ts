import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * projection_checkpoints.last_event_at / lag_ms: when the newest applied event was recorded and how long it took to
 * reach the read model (the hub exports it as hcn_projection_lag_seconds per projection).
 */
export class ProjectionLag1763772300000 implements MigrationInterface {
  name = 'ProjectionLag1763772300000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(
      'ALTER TABLE projection_checkpoints ADD COLUMN last_event_at timestamptz, ADD COLUMN lag_ms double precision',
    );
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query('ALTER TABLE projection_checkpoints DROP COLUMN last_event_at, DROP COLUMN lag_ms');
  }
}
