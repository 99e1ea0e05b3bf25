import type { MigrationInterface, QueryRunner } from 'typeorm';

/** cluster_checkpoint: the cluster fold stored every so many cluster events (decision replays start from one). */
export class ClusterCheckpoint1763776000000 implements MigrationInterface {
  name = 'ClusterCheckpoint1763776000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`CREATE TABLE cluster_checkpoint (
      commit bigint NOT NULL,
      prepare bigint NOT NULL,
      seq int NOT NULL UNIQUE,
      cluster_events bigint NOT NULL,
      nodes int NOT NULL,
      state text NOT NULL,
      written_at timestamptz NOT NULL,
      PRIMARY KEY (commit, prepare)
    )`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query('DROP TABLE cluster_checkpoint');
  }
}
