import type { MigrationInterface, QueryRunner } from 'typeorm';

/** The devices each reservation holds (whole, or memory slices), for per-device allocation state. */
export class ReservationDevices1763773200000 implements MigrationInterface {
  name = 'ReservationDevices1763773200000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`ALTER TABLE node_reservation ADD COLUMN devices jsonb NOT NULL DEFAULT '[]'::jsonb`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query('ALTER TABLE node_reservation DROP COLUMN devices');
  }
}
