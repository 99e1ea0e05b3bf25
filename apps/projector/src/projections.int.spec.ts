import type { RecordedHcnEvent } from '@hcn/contracts';
import { PostgresEventStore } from '@hcn/eventstore';
import { openReadModels } from '@hcn/read-models';
import { createTestDatabase, describeWithPostgres } from '@hcn/testing';
import { Client } from 'pg';
import type { DataSource } from 'typeorm';
import { emptyChanges } from './projection';
import { READ_MODEL_CHANNEL } from './projection-runner';
import { createProjections } from './projections';
import { RunningProjector, startProjector } from './projector';
import { rebuildProjection, rebuildProjections } from './rebuild';
import { scenarioIds, writeOutcomes, writePlacements, writeSetup } from './testing/scenario-log';

const TABLES: Record<string, string> = {
  node_state: 'node_id',
  node_reservation: 'allocation_id',
  domain_summary: 'domain_id',
  workload_state: 'workload_id',
  allocation_state: 'allocation_id',
  node_runtime: 'node_id',
  quota_usage: 'namespace',
  quota_hold: 'workload_id',
  delegation_hops: 'workload_id, revision',
  delegation_namespaces: 'workload_id',
  device_state: 'node_id, vendor, index',
  device_registrations: 'node_id',
};

async function snapshot(db: DataSource): Promise<Record<string, unknown[]>> {
  const entries = await Promise.all(
    Object.entries(TABLES).map(async ([table, key]) => [
      table,
      await db.query(`SELECT * FROM ${table} ORDER BY ${key}`),
    ]),
  );
  return Object.fromEntries(entries);
}

/** Restarts the projector and waits until it has applied everything committed so far. */
async function settle(store: PostgresEventStore, db: DataSource, running?: RunningProjector) {
  await running?.stop();
  const projector = await startProjector(store, db, { maxBatch: 7 });
  await projector.whenCaughtUp();
  return projector;
}

/** Applies `events` once more to every projection, as a replayed batch would. */
async function replay(
  store: PostgresEventStore,
  db: DataSource,
  pick: (all: RecordedHcnEvent[]) => RecordedHcnEvent[],
) {
  for (const projection of createProjections()) {
    const events = pick(await store.readAll({ filter: projection.filter }));
    await db.transaction((tx) => projection.apply(tx, events, emptyChanges()));
  }
}

describeWithPostgres('workload, quota, capacity and domain projections (real PostgreSQL)', () => {
  it('projects the log, gives identical tables after a rebuild, and a replayed batch changes nothing', async () => {
    const database = await createTestDatabase('proj_wl');
    const store = await PostgresEventStore.connect({
      connectionString: database.url,
      polling: { pollIntervalMs: 50 },
    });
    const db = await openReadModels(database.url, 4);
    const listener = new Client({ connectionString: database.url });
    const notices: Array<Record<string, unknown>> = [];
    try {
      await listener.connect();
      listener.on('notification', (n) => notices.push(JSON.parse(n.payload ?? '{}')));
      await listener.query(`LISTEN ${READ_MODEL_CHANNEL}`);
      const ids = scenarioIds();
      await writeSetup(store, ids);
      let projector = await settle(store, db);
      await writePlacements(store, ids);
      projector = await settle(store, db, projector);
      await writeOutcomes(store, ids);
      projector = await settle(store, db, projector);
      await projector.stop();

      const live = await snapshot(db);
      expectScenarioRows(live, ids);
      expect(notices.some((n) => (n.workloads as string[])?.includes(ids.workloads[0]))).toBe(true);
      expect(notices.some((n) => (n.namespaces as string[])?.includes('team-a'))).toBe(true);

      await replay(store, db, (all) => all);
      await replay(store, db, (all) => all.slice(-5));
      expect(await snapshot(db)).toEqual(live);

      for (const projection of createProjections()) await rebuildProjection(store, db, projection);
      expect(await snapshot(db)).toEqual(live);
      // All at once, reading the log once, in small batches so several are written while the next is read.
      const all = await rebuildProjections(store, db, createProjections(), { batchEvents: 3, pageSize: 4 });
      expect(all.read).toBe(await store.approximateEventCount());
      expect(await snapshot(db)).toEqual(live);
    } finally {
      await listener.end();
      await store.close();
      await db.destroy();
      await database.drop();
    }
  });
});

function expectScenarioRows(tables: Record<string, unknown[]>, ids: ReturnType<typeof scenarioIds>): void {
  const rows = (table: string) => tables[table] as Array<Record<string, unknown>>;
  const byId = (table: string, key: string) => new Map(rows(table).map((r) => [r[key] as string, r]));
  const workloads = byId('workload_state', 'workload_id');
  const [w1, w2, w3] = ids.workloads;
  expect(workloads.get(w1)).toMatchObject({ status: 'running', namespace: 'team-a', name: 'train', hops: 4 });
  expect(workloads.get(w2)).toMatchObject({ status: 'stopping', stop_requested: true });
  expect(workloads.get(w3)).toMatchObject({ status: 'deleted', deleted: true });
  const allocations = byId('allocation_state', 'allocation_id');
  expect(ids.allocations.slice(0, 4).map((a) => allocations.get(a)?.status)).toEqual([
    'completed',
    'running',
    'stopping',
    'lost',
  ]);
  const quotas = byId('quota_usage', 'namespace');
  expect(quotas.get('team-a')).toMatchObject({
    limits: { cpuMillis: 10_000, workloads: 5 },
    used_cpu_millis: '3000',
    used_memory_bytes: String(2 ** 31),
    used_accelerators: 2,
    used_workloads: 1,
  });
  expect(quotas.get('team-b')).toMatchObject({ limits: {}, used_cpu_millis: '1500', used_workloads: 1 });
  const nodes = byId('node_state', 'node_id');
  for (const node of ids.nodes.slice(0, 2)) {
    expect(nodes.get(node)).toMatchObject({ reserved_cpu_millis: '1500', reserved_accelerators: 1 });
  }
  const domains = byId('domain_summary', 'domain_id');
  expect([...domains.keys()]).toEqual(['root', 'site-a', 'site-b']);
  expect(domains.get('root')).toMatchObject({
    defined: true,
    nodes_online: 0,
    region: 'eu',
    parent_id: null,
  });
  expect(domains.get('site-a')).toMatchObject({
    defined: true,
    nodes_online: 3,
    accelerators_total: 4,
    reserved_cpu_millis: '3000',
    region: 'eu-west',
    policy: 'spread',
    labels: { tier: 'gold' },
    head_node_id: ids.nodes[0],
  });
  expect(domains.get('site-b')).toMatchObject({
    defined: true,
    nodes_online: 1,
    policy: 'bin-pack',
    parent_id: 'root',
  });
  expectDeviceAndHopRows(tables, ids);
}

/** device_state follows registrations and heartbeats; delegation_hops holds every hop, rejection and outcome. */
function expectDeviceAndHopRows(
  tables: Record<string, unknown[]>,
  ids: ReturnType<typeof scenarioIds>,
): void {
  const devices = (tables.device_state as Array<Record<string, unknown>>).map((d) => [
    ids.nodes.indexOf(d.node_id as string),
    d.index,
    d.health,
    d.utilization,
    d.last_heartbeat_seq,
  ]);
  // node 1: one device, last heartbeat seq 2; node 2 re-registered with one of its two devices, unhealthy;
  // node 3 re-registered into site-a with 3 devices, never heartbeating
  expect(devices.sort()).toEqual([
    [1, 0, 90, 0.5, 2],
    [2, 0, 30, null, null],
    [3, 0, 100, null, null],
    [3, 1, 100, null, null],
    [3, 2, 100, null, null],
  ]);
  const hops = tables.delegation_hops as Array<Record<string, unknown>>;
  const [w1] = ids.workloads;
  const rejected = hops.filter((h) => h.type === 'rejected');
  expect(rejected).toEqual([
    expect.objectContaining({
      workload_id: w1,
      scope: 'site-b',
      reason: 'SCHEDULE.NO_FEASIBLE_NODE',
      filtered: 1,
    }),
  ]);
  const toNode = hops.filter((h) => h.type === 'delegated' && h.target_kind === 'node');
  expect(toNode).toHaveLength(4);
  expect(toNode.every((h) => h.considered === 2 && h.filtered === 1)).toBe(true);
  const w1Steps = hops
    .filter((h) => h.workload_id === w1)
    .sort((a, b) => Number(a.revision) - Number(b.revision));
  expect(w1Steps.map((h) => h.type)).toEqual([
    'rejected',
    'delegated',
    'delegated',
    'placed',
    'delegated',
    'delegated',
    'placed',
  ]);
}
