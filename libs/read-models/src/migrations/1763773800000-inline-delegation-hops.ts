import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Delegation hops up to a page stay inline and uncompressed: a hop's candidates (every node of a site with its
 * verdict and score) run past the default 2 kB at which PostgreSQL compresses a row into its TOAST table, a cost
 * paid on every placement's projection. Rows written before keep their form.
 */
export class InlineDelegationHops1763773800000 implements MigrationInterface {
  name = 'InlineDelegationHops1763773800000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`ALTER TABLE delegation_hops SET (toast_tuple_target = 8160)`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`ALTER TABLE delegation_hops RESET (toast_tuple_target)`);
  }
}
