import type { MigrationInterface, QueryRunner } from 'typeorm';

/** taskqueue_state read model (projection of taskqueue-* streams). */
export class TaskQueueState1763774800000 implements MigrationInterface {
  name = 'TaskQueueState1763774800000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`CREATE TABLE taskqueue_state (
      queue_id uuid PRIMARY KEY,
      namespace text NOT NULL,
      name text NOT NULL,
      status text NOT NULL,
      current_task uuid,
      state jsonb NOT NULL,
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL,
      last_revision int NOT NULL
    )`);
    await runner.query(
      'CREATE INDEX taskqueue_state_namespace ON taskqueue_state (namespace, created_at, queue_id)',
    );
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query('DROP TABLE taskqueue_state');
  }
}
