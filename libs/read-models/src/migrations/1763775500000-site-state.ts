import type { MigrationInterface, QueryRunner } from 'typeorm';

/** site_state read model (projection of site-* and sitesummary-* streams). */
export class SiteState1763775500000 implements MigrationInterface {
  name = 'SiteState1763775500000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`CREATE TABLE site_state (
      site_id text PRIMARY KEY,
      status text NOT NULL,
      relation text NOT NULL,
      name text,
      url text,
      regions jsonb NOT NULL,
      state jsonb NOT NULL,
      summary jsonb,
      summary_at timestamptz,
      updated_at timestamptz NOT NULL,
      last_revision int NOT NULL,
      summary_revision int NOT NULL
    )`);
    await runner.query('CREATE INDEX site_state_status ON site_state (status, site_id)');
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query('DROP TABLE site_state');
  }
}
