import type { MigrationInterface, QueryRunner } from 'typeorm';

/** node_state and domain_summary read models. */
export class NodeState1763770100000 implements MigrationInterface {
  name = 'NodeState1763770100000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`CREATE TABLE node_state (
      node_id uuid PRIMARY KEY,
      domain_id text NOT NULL,
      hostname text NOT NULL,
      arch text NOT NULL,
      os text NOT NULL,
      cpu_cores int NOT NULL,
      memory_bytes bigint NOT NULL,
      disk_bytes bigint NOT NULL,
      labels jsonb NOT NULL,
      is_head boolean NOT NULL,
      agent_version text NOT NULL,
      status text NOT NULL,
      draining boolean NOT NULL,
      stop_requested boolean NOT NULL,
      registered_at timestamptz NOT NULL,
      last_seen_at timestamptz,
      cpu_usage double precision,
      memory_used_bytes bigint,
      disk_used_bytes bigint,
      last_heartbeat_seq int,
      updated_at timestamptz NOT NULL
    )`);
    await runner.query('CREATE INDEX node_state_domain_status ON node_state (domain_id, status)');
    await runner.query('CREATE INDEX node_state_labels ON node_state USING gin (labels)');
    await runner.query(`CREATE TABLE domain_summary (
      domain_id text PRIMARY KEY,
      nodes_online int NOT NULL,
      nodes_offline int NOT NULL,
      nodes_draining int NOT NULL,
      cpu_cores_total int NOT NULL,
      cpu_cores_available double precision NOT NULL,
      memory_bytes_total bigint NOT NULL,
      memory_bytes_available bigint NOT NULL,
      resource_tags jsonb NOT NULL
    )`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query('DROP TABLE domain_summary');
    await runner.query('DROP TABLE node_state');
  }
}
