import { RecordedHcnEvent, nodeStream, quotaStream } from '@hcn/contracts';
import { openReadModels } from '@hcn/read-models';
import { TestDatabase, createTestDatabase, describeWithPostgres } from '@hcn/testing';
import type { DataSource } from 'typeorm';
import { emptyChanges } from '../projection';
import { applyCapacityEvents } from './node-capacity';
import { quotaUsageProjection } from './quota-usage.projection';

const id = (n: number): string => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const NODE = id(900);
const resources = (cpuMillis: number) => ({ cpuMillis, memoryBytes: cpuMillis * 1000, accelerators: 0 });
let revision = 0;

/** A recorded event of the given type and data (the fields the projections read). */
function recorded(type: string, streamId: string, data: Record<string, unknown>): RecordedHcnEvent {
  const n = revision++;
  const at = new Date(Date.UTC(2026, 10, 26, 0, 0, n)).toISOString();
  return {
    eventId: id(10_000 + n),
    type,
    streamId,
    revision: n,
    position: { commit: BigInt(n + 1), prepare: BigInt(n + 1) },
    recordedAt: at,
    data,
    metadata: {
      correlationId: 'c',
      causationId: 'c',
      actor: { kind: 'system', id: 'spec' },
      occurredAt: at,
      schemaVersion: 1,
    },
  } as RecordedHcnEvent;
}

const reserved = (allocation: number, cpu: number) =>
  recorded('CapacityReserved', nodeStream(NODE), {
    nodeId: NODE,
    allocationId: id(allocation),
    workloadId: id(allocation + 100),
    resources: resources(cpu),
  });
const released = (allocation: number) =>
  recorded('CapacityReleased', nodeStream(NODE), {
    nodeId: NODE,
    allocationId: id(allocation),
    reason: 'spec',
  });

/**
 * The projector writes a batch's capacity events and a run of quota holds in one statement each. The rows must be
 * what applying the events one by one gives: first event of an allocation makes its row, a later release releases
 * it, a reservation after its release leaves the tombstone, the last hold of a workload wins, and a replay changes
 * nothing.
 */
describeWithPostgres('projector rows written in one statement per batch (real PostgreSQL)', () => {
  let database: TestDatabase;
  let db: DataSource;

  beforeAll(async () => {
    database = await createTestDatabase('p_batchrows');
    db = await openReadModels(database.url, 2);
  });
  afterAll(async () => {
    await db.destroy();
    await database.drop();
  });

  it('node_reservation: reserve, release, tombstone first, duplicates and a replay', async () => {
    const batch = [
      reserved(1, 100),
      reserved(2, 200),
      released(2),
      released(3),
      reserved(3, 300),
      reserved(4, 400),
    ];
    type Stored = {
      allocation_id: string;
      workload_id: string | null;
      cpu_millis: string;
      released: boolean;
    };
    const rows = async (): Promise<Stored[]> =>
      db.query(
        'SELECT allocation_id, workload_id, cpu_millis::text, released FROM node_reservation ORDER BY allocation_id',
      );
    const touched = await db.transaction((tx) => applyCapacityEvents(tx, batch as never));
    expect([...touched.keys()]).toEqual([NODE]);
    expect(touched.get(NODE)).toBe(batch[batch.length - 1].recordedAt);
    const expected = [
      { allocation_id: id(1), workload_id: id(101), cpu_millis: '100', released: false },
      { allocation_id: id(2), workload_id: id(102), cpu_millis: '200', released: true },
      { allocation_id: id(3), workload_id: null, cpu_millis: '0', released: true },
      { allocation_id: id(4), workload_id: id(104), cpu_millis: '400', released: false },
    ];
    expect(await rows()).toEqual(expected);
    // a replay of the batch, and a later batch releasing one reservation and reserving a released one again
    await db.transaction((tx) => applyCapacityEvents(tx, batch as never));
    expect(await rows()).toEqual(expected);
    await db.transaction((tx) => applyCapacityEvents(tx, [released(4), reserved(2, 999)] as never));
    expect((await rows()).map((r) => r.released)).toEqual([false, true, true, true]);
  });

  it('quota_hold: a run of holds in one statement, the last hold of a workload kept, a release in between', async () => {
    const ns = 'batch-ns';
    const amounts = (cpu: number) => ({ ...resources(cpu), acceleratorMemoryBytes: 0, computeUnits: 0 });
    const consumed = (w: number, cpu: number) =>
      recorded('QuotaConsumed', quotaStream(ns), {
        namespace: ns,
        workloadId: id(w),
        resources: amounts(cpu),
      });
    const release = (w: number) =>
      recorded('QuotaReleased', quotaStream(ns), {
        namespace: ns,
        workloadId: id(w),
        resources: amounts(0),
        reason: 'spec',
      });
    revision = 0; // the namespace's stream starts at revision 0
    const events = [consumed(1, 100), consumed(2, 200), consumed(1, 150), release(2), consumed(3, 300)];
    await db.transaction((tx) => quotaUsageProjection.apply(tx, events, emptyChanges()));
    const holds: Array<{ workload_id: string; cpu_millis: string }> = await db.query(
      'SELECT workload_id, cpu_millis::text FROM quota_hold WHERE namespace = $1 ORDER BY workload_id',
      [ns],
    );
    expect(holds).toEqual([
      { workload_id: id(1), cpu_millis: '150' },
      { workload_id: id(3), cpu_millis: '300' },
    ]);
    const [usage]: Array<{ used_cpu_millis: string; used_workloads: number }> = await db.query(
      'SELECT used_cpu_millis::text, used_workloads FROM quota_usage WHERE namespace = $1',
      [ns],
    );
    expect(usage).toEqual({ used_cpu_millis: '450', used_workloads: 2 });
  });
});
