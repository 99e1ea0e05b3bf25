import { NODE_LOSS_ACTOR_ID, NewEvent, workloadStream } from '@hcn/contracts';
import { PostgresEventStore } from '@hcn/eventstore';
import { NODE_RUNTIME_COLUMNS, NodeRuntime, nodeRuntimeFromRow, openReadModels } from '@hcn/read-models';
import { createTestDatabase, describeWithPostgres } from '@hcn/testing';
import { Client } from 'pg';
import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { emptyChanges } from '../projection';
import { READ_MODEL_CHANNEL } from '../projection-runner';
import { RunningProjector, startProjector } from '../projector';
import { rebuildProjection } from '../rebuild';
import { spec } from '../testing/workload-events';
import { workloadsProjection } from './workloads.projection';

type Actor = { kind: 'user' | 'agent' | 'system'; id: string };

function event(type: string, data: Record<string, unknown>, actor: Actor): NewEvent {
  const metadata = {
    correlationId: 'spec',
    causationId: 'spec',
    actor,
    occurredAt: new Date().toISOString(),
  };
  return { eventId: randomUUID(), type, data, metadata };
}

/** The runtime of a node as GET /v1/nodes reads it (a node without a row is idle). */
async function runtimeOf(db: DataSource, nodeId: string): Promise<NodeRuntime> {
  const rows = await db.query(
    `SELECT ${NODE_RUNTIME_COLUMNS} FROM (SELECT $1::uuid AS node_id) n LEFT JOIN node_runtime r USING (node_id)`,
    [nodeId],
  );
  return nodeRuntimeFromRow(rows[0]);
}

describeWithPostgres('node runtime state in the workloads projection (real PostgreSQL)', () => {
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  let store: PostgresEventStore;
  let db: DataSource;
  let listener: Client;
  const notices: Array<{ nodes?: string[] }> = [];
  let projector: RunningProjector | undefined;
  const node = randomUUID();
  const other = randomUUID();
  const agent: Actor = { kind: 'agent', id: node };
  const hub: Actor = { kind: 'system', id: 'scheduler-saga' };

  beforeAll(async () => {
    database = await createTestDatabase('node_runtime');
    store = await PostgresEventStore.connect({
      connectionString: database.url,
      polling: { pollIntervalMs: 50 },
    });
    db = await openReadModels(database.url, 4);
    listener = new Client({ connectionString: database.url });
    await listener.connect();
    listener.on('notification', (n) => notices.push(JSON.parse(n.payload ?? '{}')));
    await listener.query(`LISTEN ${READ_MODEL_CHANNEL}`);
  });
  afterAll(async () => {
    await projector?.stop();
    await listener?.end();
    await store?.close();
    await db?.destroy();
    await database?.drop();
  });

  /** Appends events and waits until the projector (restarted, small batches) has applied them. */
  async function write(...events: Array<[string, NewEvent]>): Promise<void> {
    for (const [workloadId, e] of events) await store.append(workloadStream(workloadId), [e], 'any');
    await projector?.stop();
    projector = await startProjector(store, db, { maxBatch: 2 });
    await projector.whenCaughtUp();
  }

  const submitted = (w: string) =>
    event('WorkloadSubmitted', { workloadId: w, spec: spec(), idempotencyKey: null }, hub);
  const placed = (w: string, a: string, on = node) =>
    event(
      'AllocationPlaced',
      {
        workloadId: w,
        allocationId: a,
        instance: 0,
        attempt: 0,
        generation: 1,
        nodeId: on,
        domainId: 'site-a',
        resources: { cpuMillis: 500, memoryBytes: 1000, accelerators: 0 },
      },
      hub,
    );
  const started = (w: string, a: string) =>
    event(
      'AllocationStarted',
      { workloadId: w, allocationId: a, nodeId: node, pid: 7, startedAt: at(1) },
      agent,
    );
  const failed = (w: string, a: string) =>
    event(
      'AllocationFailed',
      {
        workloadId: w,
        allocationId: a,
        nodeId: node,
        reason: 'exited with code 1',
        exitCode: 1,
        signal: null,
        endedAt: at(2),
      },
      agent,
    );
  const completed = (w: string, a: string) =>
    event(
      'AllocationCompleted',
      { workloadId: w, allocationId: a, nodeId: node, exitCode: 0, endedAt: at(3) },
      agent,
    );
  const lost = (w: string, a: string, by: Actor, reason: string) =>
    event('AllocationLost', { workloadId: w, allocationId: a, nodeId: node, reason, lostAt: at(4) }, by);
  const at = (s: number) => new Date(Date.UTC(2026, 10, 22, 10, 0, s)).toISOString();

  it('goes idle → running → error → running → idle as allocations start and end, exactly once per event', async () => {
    const [w1, w2, w3] = [randomUUID(), randomUUID(), randomUUID()];
    const [a1, a2, a3] = [randomUUID(), randomUUID(), randomUUID()];
    // given a node nothing ever ran on: idle
    expect(await runtimeOf(db, node)).toEqual({ state: 'idle', activeInstances: 0 });
    // when an allocation is placed on it: running
    await write([w1, submitted(w1)], [w1, placed(w1, a1)], [w1, started(w1, a1)]);
    expect(await runtimeOf(db, node)).toEqual({ state: 'running', activeInstances: 1 });
    expect(notices.some((n) => n.nodes?.includes(node))).toBe(true);
    // when it exits 1: error, with the failure
    await write([w1, failed(w1, a1)]);
    const error = { allocationId: a1, workloadId: w1, reason: 'exited with code 1', at: at(2) };
    expect(await runtimeOf(db, node)).toEqual({ state: 'error', activeInstances: 0, lastError: error });
    // an allocation placed on another node changes nothing here
    await write([w3, submitted(w3)], [w3, placed(w3, a3, other)]);
    expect(await runtimeOf(db, node)).toMatchObject({ state: 'error' });
    expect(await runtimeOf(db, other)).toEqual({ state: 'running', activeInstances: 1 });
    // when a new allocation starts: running, the error cleared
    await write([w2, submitted(w2)], [w2, placed(w2, a2)], [w2, started(w2, a2)]);
    expect(await runtimeOf(db, node)).toEqual({ state: 'running', activeInstances: 1 });
    // when it completes: idle
    await write([w2, completed(w2, a2)]);
    expect(await runtimeOf(db, node)).toEqual({ state: 'idle', activeInstances: 0 });

    // replaying every batch changes nothing; a rebuild from zero gives the same table
    const table = async () => db.query('SELECT * FROM node_runtime ORDER BY node_id');
    const before = await table();
    const all = await store.readAll({ filter: workloadsProjection.filter });
    await db.transaction((tx) => workloadsProjection.apply(tx, all, emptyChanges()));
    expect(await table()).toEqual(before);
    await projector?.stop();
    projector = undefined;
    await rebuildProjection(store, db, workloadsProjection);
    expect(await table()).toEqual(before);
  }, 60000);

  it('counts a loss the node reports as an error, not one recorded because the node went offline', async () => {
    const [w4, w5, w6] = [randomUUID(), randomUUID(), randomUUID()];
    const [a4, a5, a6] = [randomUUID(), randomUUID(), randomUUID()];
    // two allocations run; one fails: still running, the failure shown
    await write([w4, submitted(w4)], [w4, placed(w4, a4)], [w5, submitted(w5)], [w5, placed(w5, a5)]);
    await write([w4, failed(w4, a4)]);
    expect(await runtimeOf(db, node)).toMatchObject({
      state: 'running',
      activeInstances: 1,
      lastError: { allocationId: a4 },
    });
    // the other is lost because the node went offline: the failure stays the last error
    const offline = { kind: 'system' as const, id: NODE_LOSS_ACTOR_ID };
    await write([w5, lost(w5, a5, offline, `node ${node} went offline`)]);
    expect(await runtimeOf(db, node)).toMatchObject({
      state: 'error',
      activeInstances: 0,
      lastError: { allocationId: a4 },
    });
    // a new one that the node itself reports lost (its container vanished): error with that reason
    await write([w6, submitted(w6)], [w6, placed(w6, a6)]);
    await write([w6, lost(w6, a6, agent, 'container vanished')]);
    expect(await runtimeOf(db, node)).toEqual({
      state: 'error',
      activeInstances: 0,
      lastError: { allocationId: a6, workloadId: w6, reason: 'container vanished', at: at(4) },
    });
    // only error nodes match the API's filter
    const errors = await db.query(
      `SELECT node_id FROM (SELECT unnest($1::uuid[]) AS node_id) n LEFT JOIN node_runtime r USING (node_id)
       WHERE COALESCE(r.state, 'idle') = 'error'`,
      [[node, other, randomUUID()]],
    );
    expect(errors).toEqual([{ node_id: node }]);
  }, 60000);
});
