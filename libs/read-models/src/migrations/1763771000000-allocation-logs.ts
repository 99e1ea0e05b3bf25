import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Creates `allocation_logs`: output chunks agents ship over the bus, keyed by (allocation, stream, byte offset) so
 * a replayed chunk is stored once. Written by the hub's report ingestion, not a projection: logs are not events.
 */
export class AllocationLogs1763771000000 implements MigrationInterface {
  name = 'AllocationLogs1763771000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`CREATE TABLE allocation_logs (
      allocation_id uuid NOT NULL,
      stream text NOT NULL,
      byte_offset bigint NOT NULL,
      workload_id uuid NOT NULL,
      node_id uuid NOT NULL,
      text text NOT NULL,
      received_at timestamptz NOT NULL,
      PRIMARY KEY (allocation_id, stream, byte_offset)
    )`);
    await runner.query('CREATE INDEX allocation_logs_workload ON allocation_logs (workload_id, received_at)');
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query('DROP TABLE allocation_logs');
  }
}
