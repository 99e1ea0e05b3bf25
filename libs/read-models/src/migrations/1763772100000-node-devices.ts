import type { MigrationInterface, QueryRunner } from 'typeorm';

/** node_state.devices: the accelerator devices a node registered with (vendor, model, memory, health), for the dashboard. */
export class NodeDevices1763772100000 implements MigrationInterface {
  name = 'NodeDevices1763772100000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`ALTER TABLE node_state ADD COLUMN devices jsonb NOT NULL DEFAULT '[]'::jsonb`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query('ALTER TABLE node_state DROP COLUMN devices');
  }
}
