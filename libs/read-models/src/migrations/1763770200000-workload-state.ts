import type { MigrationInterface, QueryRunner } from 'typeorm';

/** workload_state and allocation_state read models (projection of workload-* streams). */
export class WorkloadState1763770200000 implements MigrationInterface {
  name = 'WorkloadState1763770200000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`CREATE TABLE workload_state (
      workload_id uuid PRIMARY KEY,
      namespace text NOT NULL,
      name text NOT NULL,
      type text NOT NULL,
      status text NOT NULL,
      priority int NOT NULL,
      replicas int NOT NULL,
      generation int NOT NULL,
      spec jsonb NOT NULL,
      instances jsonb NOT NULL,
      hops int NOT NULL,
      stop_requested boolean NOT NULL,
      deleted boolean NOT NULL,
      submitted_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL,
      last_revision int NOT NULL
    )`);
    await runner.query('CREATE INDEX workload_state_namespace_status ON workload_state (namespace, status)');
    await runner.query('CREATE INDEX workload_state_submitted ON workload_state (submitted_at, workload_id)');
    await runner.query(
      'CREATE INDEX workload_state_instances ON workload_state USING gin (instances jsonb_path_ops)',
    );
    await runner.query(`CREATE TABLE allocation_state (
      allocation_id uuid PRIMARY KEY,
      workload_id uuid NOT NULL,
      namespace text NOT NULL,
      instance int NOT NULL,
      attempt int NOT NULL,
      generation int NOT NULL,
      node_id uuid NOT NULL,
      domain_id text NOT NULL,
      status text NOT NULL,
      cpu_millis int NOT NULL,
      memory_bytes bigint NOT NULL,
      accelerators int NOT NULL,
      exit_code int,
      signal text,
      reason text,
      pid int,
      placed_at timestamptz NOT NULL,
      started_at timestamptz,
      ended_at timestamptz,
      updated_at timestamptz NOT NULL
    )`);
    await runner.query(
      'CREATE INDEX allocation_state_workload ON allocation_state (workload_id, instance, attempt)',
    );
    await runner.query('CREATE INDEX allocation_state_node ON allocation_state (node_id, status)');
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query('DROP TABLE allocation_state');
    await runner.query('DROP TABLE workload_state');
  }
}
