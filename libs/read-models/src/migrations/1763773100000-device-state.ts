import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * device_state: one row per accelerator device of a node (vendor, index): what it is (from the registration) and
 * its latest utilization, memory in use, temperature and health (from heartbeats, guarded by the heartbeat seq).
 */
export class DeviceState1763773100000 implements MigrationInterface {
  name = 'DeviceState1763773100000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`CREATE TABLE device_state (
      node_id uuid NOT NULL,
      vendor text NOT NULL,
      index int NOT NULL,
      model text NOT NULL,
      memory_bytes bigint,
      health int NOT NULL,
      utilization double precision,
      memory_used_bytes bigint,
      temperature_c double precision,
      last_heartbeat_seq int,
      registered_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL,
      PRIMARY KEY (node_id, vendor, index)
    )`);
    await runner.query('CREATE INDEX device_state_vendor_model ON device_state (vendor, model)');
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query('DROP TABLE device_state');
  }
}
