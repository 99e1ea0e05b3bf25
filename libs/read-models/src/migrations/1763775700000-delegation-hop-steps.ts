import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * delegation_hops keyed by (workload, revision, step): a decision recorded in one event (its hops and rejections
 * inside AllocationPlaced / WorkloadUnschedulable) gives one row per step; older events keep step 0.
 */
export class DelegationHopSteps1763775700000 implements MigrationInterface {
  name = 'DelegationHopSteps1763775700000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query('ALTER TABLE delegation_hops ADD COLUMN step int NOT NULL DEFAULT 0');
    await runner.query('ALTER TABLE delegation_hops DROP CONSTRAINT delegation_hops_pkey');
    await runner.query('ALTER TABLE delegation_hops ADD PRIMARY KEY (workload_id, revision, step)');
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query('DELETE FROM delegation_hops WHERE step > 0');
    await runner.query('ALTER TABLE delegation_hops DROP CONSTRAINT delegation_hops_pkey');
    await runner.query('ALTER TABLE delegation_hops ADD PRIMARY KEY (workload_id, revision)');
    await runner.query('ALTER TABLE delegation_hops DROP COLUMN step');
  }
}
