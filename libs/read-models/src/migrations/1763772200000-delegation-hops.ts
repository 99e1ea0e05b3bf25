import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * delegation_hops: one row per recorded scheduling step of every workload (hop, rejection, placement,
 * unschedulable) with its candidates, for queries across workloads (what did scope X reject, and why);
 * delegation_namespaces: each workload's namespace, from its submission, so that hops can be scoped by token.
 */
export class DelegationHops1763772200000 implements MigrationInterface {
  name = 'DelegationHops1763772200000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`CREATE TABLE delegation_hops (
      workload_id uuid NOT NULL,
      revision int NOT NULL,
      namespace text NOT NULL,
      instance int NOT NULL,
      attempt int NOT NULL,
      type text NOT NULL,
      hop int,
      scope text,
      target text,
      target_kind text,
      reason text,
      detail text,
      candidates jsonb NOT NULL,
      considered int NOT NULL,
      filtered int NOT NULL,
      recorded_at timestamptz NOT NULL,
      PRIMARY KEY (workload_id, revision)
    )`);
    await runner.query('CREATE INDEX delegation_hops_namespace ON delegation_hops (namespace, recorded_at)');
    await runner.query('CREATE INDEX delegation_hops_scope ON delegation_hops (scope, recorded_at)');
    await runner.query(
      'CREATE INDEX delegation_hops_recorded ON delegation_hops (recorded_at, workload_id, revision)',
    );
    await runner.query(
      `CREATE TABLE delegation_namespaces (workload_id uuid PRIMARY KEY, namespace text NOT NULL)`,
    );
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query('DROP TABLE delegation_namespaces');
    await runner.query('DROP TABLE delegation_hops');
  }
}
