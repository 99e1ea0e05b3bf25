import { heartbeatStream, nodeStream } from '@hcn/contracts';
import { PostgresEventStore } from '@hcn/eventstore';
import { AppProcess, createTestDatabase, describeWithPostgres, eventuallyExpect } from '@hcn/testing';
import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { openReadModels } from '@hcn/read-models';
import { createProjections } from '../../apps/projector/src/projections';
import { rebuildProjections } from '../../apps/projector/src/rebuild';
import {
  scenarioIds,
  writeOutcomes,
  specEvent,
  writePlacements,
  writeSetup,
} from '../../apps/projector/src/testing/scenario-log';

/** Read-model tables the projector writes (allocation_logs is written by the hub, not the projector). */
const TABLES = [
  'node_state',
  'domain_summary',
  'workload_state',
  'allocation_state',
  'quota_usage',
  'quota_hold',
  'node_reservation',
  'delegation_hops',
  'delegation_namespaces',
  'device_state',
  'device_registrations',
];

/** Every projector table as sorted JSON rows. */
async function snapshot(db: Client): Promise<Record<string, string[]>> {
  const out: Record<string, string[]> = {};
  for (const table of TABLES)
    out[table] = (await db.query(`SELECT row_to_json(t)::text AS r FROM ${table} t ORDER BY r`)).rows.map(
      (x) => x.r,
    );
  return out;
}

/** The projector as its own process, SIGKILLed in the middle of a long log, then run again: the same tables as a rebuild. */
describeWithPostgres('projector SIGKILLed mid-batch (processes, real PostgreSQL)', () => {
  it('resumes after its checkpoints to the same tables a rebuild from zero gives', async () => {
    const database = await createTestDatabase('projkill');
    const store = await PostgresEventStore.connect({ connectionString: database.url });
    const db = new Client({ connectionString: database.url });
    await db.connect();
    const env = { DATABASE_URL: database.url };
    let projector: AppProcess | undefined;
    try {
      const ids = scenarioIds();
      await writeSetup(store, ids);
      await writePlacements(store, ids);
      await writeOutcomes(store, ids);
      const nodes = Array.from({ length: 50 }, (_, i) => ({ id: randomUUID(), i }));
      const at = (s: number) => new Date(Date.UTC(2026, 10, 26, 0, 0, s)).toISOString();
      await store.appendMany(
        nodes.map((n) => ({
          streamId: nodeStream(n.id),
          expectedRevision: 'no_stream' as const,
          events: [
            specEvent('NodeRegistered', {
              nodeId: n.id,
              domainId: `kill-${n.i % 3}`,
              hostname: `k${n.i}`,
              arch: 'x64',
              os: 'linux',
              cpuCores: 8,
              memoryBytes: 2 ** 34,
              diskBytes: 2 ** 40,
              labels: {},
              isHead: false,
              agentVersion: 'spec',
            }),
          ],
        })),
      );
      for (let seq = 0; seq < 400; seq++)
        await store.appendMany(
          nodes.map((n) => ({
            streamId: heartbeatStream(n.id),
            expectedRevision: 'any' as const,
            events: [
              specEvent('NodeHeartbeatRecorded', {
                nodeId: n.id,
                seq,
                sentAt: at(seq + 1),
                runningAllocations: [],
                usage: { cpuUsage: ((n.i + seq) % 10) / 10, memoryUsedBytes: seq, diskUsedBytes: 1 },
              }),
            ],
          })),
        );

      projector = new AppProcess('projector', 'apps/projector/src/main.ts', env).start();
      // 0 until the projector has migrated the read models and written its first batch
      const applied = async (): Promise<number> =>
        db.query(`SELECT coalesce(max(events_applied), 0)::int AS n FROM projection_checkpoints`).then(
          (r) => r.rows[0].n as number,
          () => 0,
        );
      const deadline = Date.now() + 60000;
      while ((await applied()) === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
      await projector.kill('SIGKILL'); // at its first batches: mid-log, most likely mid-batch
      const caughtUpAtKill = (
        await db.query(`SELECT count(*)::int AS n FROM node_state WHERE last_heartbeat_seq = 399`)
      ).rows[0].n;
      expect(caughtUpAtKill).toBeLessThan(50);

      projector = new AppProcess('projector', 'apps/projector/src/main.ts', env).start();
      await eventuallyExpect(async () => {
        expect(
          (await db.query(`SELECT count(*)::int AS n FROM node_state WHERE last_heartbeat_seq = 399`)).rows[0]
            .n,
        ).toBe(50);
      }, 90000);
      await new Promise((r) => setTimeout(r, 2000)); // idle checkpoints of the other projections
      await projector.kill('SIGTERM');
      projector = undefined;
      const resumed = await snapshot(db);

      const readModels = await openReadModels(database.url, 2);
      await rebuildProjections(store, readModels, createProjections()).finally(() => readModels.destroy());
      const rebuilt = await snapshot(db);
      expect(resumed.node_state).toHaveLength(54);
      expect(resumed).toEqual(rebuilt);
    } finally {
      await projector?.kill('SIGKILL');
      await db.end();
      await store.close();
      await database.drop();
    }
  }, 240000);
});
