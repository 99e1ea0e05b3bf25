import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Accelerator memory and normalized compute units held against quotas (quota_usage totals, quota_hold rows). */
export class QuotaDeviceAmounts1763773000000 implements MigrationInterface {
  name = 'QuotaDeviceAmounts1763773000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`ALTER TABLE quota_usage
      ADD COLUMN used_accelerator_memory_bytes bigint NOT NULL DEFAULT 0,
      ADD COLUMN used_compute_units double precision NOT NULL DEFAULT 0`);
    await runner.query(`ALTER TABLE quota_hold
      ADD COLUMN accelerator_memory_bytes bigint NOT NULL DEFAULT 0,
      ADD COLUMN compute_units double precision NOT NULL DEFAULT 0`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(
      'ALTER TABLE quota_hold DROP COLUMN accelerator_memory_bytes, DROP COLUMN compute_units',
    );
    await runner.query(
      'ALTER TABLE quota_usage DROP COLUMN used_accelerator_memory_bytes, DROP COLUMN used_compute_units',
    );
  }
}
