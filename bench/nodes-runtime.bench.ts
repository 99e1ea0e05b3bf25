import { openReadModels } from '@hcn/read-models';
import type { DataSource } from 'typeorm';
import { listNodes, listNodesQuerySchema } from '../apps/hub/src/queries/nodes.query';
import { NodeRuntime1763774500000 } from '../libs/read-models/src/migrations/1763774500000-node-runtime';
import { benchDatabase, percentile, report } from './support';

const NODES = Number(process.env.BENCH_NODES ?? 1000);
const HISTORY = Number(process.env.BENCH_ALLOCATIONS_PER_NODE ?? 50);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 200);

/** 1,000 nodes (with labels and usage, a tenth with two devices) and their allocation history. */
async function seed(db: DataSource): Promise<void> {
  await db.query(
    `INSERT INTO node_state (node_id, domain_id, hostname, arch, os, cpu_cores, memory_bytes, disk_bytes,
      labels, is_head, agent_version, status, draining, stop_requested, registered_at, last_seen_at, cpu_usage,
      memory_used_bytes, disk_used_bytes, updated_at, devices, accelerators)
    SELECT md5('node' || i)::uuid, 'site-' || (i % 10), 'host-' || lpad(i::text, 5, '0'), 'x64', 'linux', 8,
      2^34, 2^37, jsonb_build_object('zone', 'z' || (i % 4)), false, 'bench', 'online', false, false, now(), now(),
      0.4, 2^33, 2^35, now(),
      CASE WHEN i % 10 = 0 THEN '[{"index":0,"vendor":"nvidia","model":"H100","memoryBytes":85899345920,"health":100},
        {"index":1,"vendor":"nvidia","model":"H100","memoryBytes":85899345920,"health":100}]'::jsonb
        ELSE '[]'::jsonb END, CASE WHEN i % 10 = 0 THEN 2 ELSE 0 END
    FROM generate_series(1, $1::int) i`,
    [NODES],
  );
  // Per node: ended allocations over time; the newest one failed on every third node, still running on every third.
  await db.query(
    `INSERT INTO allocation_state (allocation_id, workload_id, namespace, instance, attempt, generation,
      node_id, domain_id, status, cpu_millis, memory_bytes, accelerators, exit_code, signal, reason, pid, placed_at,
      started_at, ended_at, updated_at)
    SELECT md5('a' || i || '-' || k)::uuid, md5('w' || i || '-' || k)::uuid, 'default', 0, 0, 1,
      md5('node' || i)::uuid, 'site-' || (i % 10),
      CASE WHEN k < $2 THEN 'completed' WHEN i % 3 = 0 THEN 'failed' WHEN i % 3 = 1 THEN 'running' ELSE 'completed' END,
      1000, 2^30, 0, CASE WHEN k = $2 AND i % 3 = 0 THEN 1 ELSE 0 END, NULL,
      CASE WHEN k = $2 AND i % 3 = 0 THEN 'exited with code 1' END, 100,
      now() - (($2 - k + 1) * interval '1 minute'), now() - (($2 - k + 1) * interval '1 minute'),
      CASE WHEN k = $2 AND i % 3 = 1 THEN NULL ELSE now() - (($2 - k) * interval '1 minute') END, now()
    FROM generate_series(1, $1::int) i, generate_series(1, $2::int) k`,
    [NODES, HISTORY],
  );
  // Fills node_runtime as an upgrade would (the projection keeps it from then on).
  const runner = db.createQueryRunner();
  const migration = new NodeRuntime1763774500000();
  await migration.down(runner);
  await migration.up(runner);
  await runner.release();
  await db.query('ANALYZE');
}

async function timed(rounds: number, f: () => Promise<unknown>): Promise<{ p50: number; p99: number }> {
  for (let i = 0; i < 10; i++) await f();
  const ms: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const start = process.hrtime.bigint();
    await f();
    ms.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  ms.sort((a, b) => a - b);
  const round = (v: number) => Math.round(v * 100) / 100;
  return { p50: round(percentile(ms, 50)), p99: round(percentile(ms, 99)) };
}

/**
 * `GET /v1/nodes?limit=1000` (what the dashboard loads) as the query answers it, with each node's runtime joined from
 * node_runtime, against the same listing without the join (node_state alone, as before), on one database; and the
 * `?runtime=error` filter. In-process (no HTTP), PostgreSQL on this box.
 */
export async function run(): Promise<void> {
  const database = await benchDatabase('nodes_runtime');
  const db = await openReadModels(database.url, 4);
  try {
    await seed(db);
    const page = (extra: Record<string, unknown> = {}) =>
      listNodesQuerySchema.parse({ limit: 1000, ...extra });
    const states: Array<{ state: string; n: number }> = await db.query(
      `SELECT state, count(*)::int AS n FROM node_runtime GROUP BY state ORDER BY state`,
    );
    const withRuntime = await timed(ROUNDS, () => listNodes(db, page()));
    const errorsOnly = await timed(ROUNDS, () => listNodes(db, page({ runtime: 'error' })));
    const withoutJoin = await timed(ROUNDS, () =>
      Promise.all([
        db.query('SELECT * FROM node_state ORDER BY hostname ASC NULLS LAST, node_id LIMIT 1000 OFFSET 0'),
        db.query('SELECT count(*)::int AS n FROM node_state'),
      ]),
    );
    const withJoin = await timed(ROUNDS, () =>
      Promise.all([
        db.query(`SELECT n.*, r.state, r.active_instances, r.last_error_reason, r.last_error_at
          FROM node_state n LEFT JOIN node_runtime r USING (node_id)
          ORDER BY hostname ASC NULLS LAST, node_id LIMIT 1000 OFFSET 0`),
        db.query('SELECT count(*)::int AS n FROM node_state n LEFT JOIN node_runtime r USING (node_id)'),
      ]),
    );
    const listed = await listNodes(db, page({ runtime: 'error' }));
    report('nodes-runtime', {
      nodes: NODES,
      allocationsPerNode: HISTORY,
      runtimeStates: Object.fromEntries(states.map((s) => [s.state, s.n])),
      errorNodesListed: listed.total,
      listNodesLimit1000Ms: withRuntime,
      listNodesRuntimeErrorMs: errorsOnly,
      sqlOnlyWithoutRuntimeJoinMs: withoutJoin,
      sqlOnlyWithRuntimeJoinMs: withJoin,
      rounds: ROUNDS,
    });
  } finally {
    await db.destroy();
    await database.stop();
  }
}
