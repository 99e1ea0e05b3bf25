import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * device_registrations: per node, the node-stream revision of the last registration applied to device_state, so a
 * replayed (older) registration can neither restore removed devices nor reset health a later heartbeat reported.
 */
export class DeviceRegistrations1763773500000 implements MigrationInterface {
  name = 'DeviceRegistrations1763773500000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(
      'CREATE TABLE device_registrations (node_id uuid PRIMARY KEY, revision int NOT NULL, recorded_at timestamptz NOT NULL)',
    );
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query('DROP TABLE device_registrations');
  }
}
