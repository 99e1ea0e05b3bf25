import type { MigrationInterface, QueryRunner } from 'typeorm';

/** quota_usage (per namespace) and quota_hold (per workload) read models (projection of quota-* streams). */
export class QuotaUsage1763770300000 implements MigrationInterface {
  name = 'QuotaUsage1763770300000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`CREATE TABLE quota_usage (
      namespace text PRIMARY KEY,
      limits jsonb NOT NULL,
      used_cpu_millis bigint NOT NULL,
      used_memory_bytes bigint NOT NULL,
      used_accelerators int NOT NULL,
      used_workloads int NOT NULL,
      last_revision int NOT NULL,
      updated_at timestamptz NOT NULL
    )`);
    await runner.query(`CREATE TABLE quota_hold (
      workload_id uuid PRIMARY KEY,
      namespace text NOT NULL,
      cpu_millis bigint NOT NULL,
      memory_bytes bigint NOT NULL,
      accelerators int NOT NULL
    )`);
    await runner.query('CREATE INDEX quota_hold_namespace ON quota_hold (namespace)');
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query('DROP TABLE quota_hold');
    await runner.query('DROP TABLE quota_usage');
  }
}
