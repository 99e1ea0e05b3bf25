import { HcnEvent, workloadStream } from '@hcn/contracts';
import { foldRecorded, workloadDecider } from '@hcn/domain';
import { PostgresEventStore } from '@hcn/eventstore';
import {
  ALLOCATION_STATE,
  AllocationStateRecord,
  WORKLOAD_STATE,
  WorkloadStateRecord,
  openReadModels,
  selectList,
} from '@hcn/read-models';
import { createTestDatabase, describeWithPostgres } from '@hcn/testing';
import { startProjector } from '../projector';
import { SCENARIOS } from '../testing/workload-events';
import { scenarioIds, specEvent, writeOutcomes, writePlacements, writeSetup } from '../testing/scenario-log';
import { workloadRecord } from './workloads.rows';

/** Scenario `k`'s events with ids of its own (the builders' ids all start 00000000-0000-4000-8000-). */
function ownIds(events: readonly HcnEvent[], k: number): HcnEvent[] {
  const prefix = `${String(k + 1).padStart(8, '0')}-0000-4000-8000-`;
  return JSON.parse(JSON.stringify(events).replaceAll('00000000-0000-4000-8000-', prefix));
}

/** A row with its times as ISO-8601 instants (it renders them in the session's time zone). */
function instants(row: WorkloadStateRecord): WorkloadStateRecord {
  const iso = (at: string): string => new Date(at).toISOString();
  return { ...row, submitted_at: iso(row.submitted_at), updated_at: iso(row.updated_at) };
}

describeWithPostgres('workloads projection (real PostgreSQL)', () => {
  it("writes each workload's row as the mapper of the domain's fold of its stream", async () => {
    const database = await createTestDatabase('proj_fold');
    const store = await PostgresEventStore.connect({
      connectionString: database.url,
      polling: { pollIntervalMs: 50 },
    });
    const db = await openReadModels(database.url, 4);
    try {
      // given realistic streams: the projector scenario and every lifecycle scenario, each in its own stream
      const ids = scenarioIds();
      await writeSetup(store, ids);
      await writePlacements(store, ids);
      await writeOutcomes(store, ids);
      const streams: string[] = ids.workloads.map(workloadStream);
      for (const [k, events] of Object.values(SCENARIOS).entries()) {
        const mine = ownIds(events, k);
        const workloadId = (mine[0].data as { workloadId: string }).workloadId;
        for (const event of mine)
          await store.append(workloadStream(workloadId), [specEvent(event.type, event.data)], 'any');
        streams.push(workloadStream(workloadId));
      }
      // when the projector applies them in batches of 3 (state read back from its row between batches)
      const projector = await startProjector(store, db, { maxBatch: 3 });
      await projector.whenCaughtUp();
      await projector.stop();
      // then each row is the mapper applied to the domain's fold of the same events
      const rows: WorkloadStateRecord[] = await db.query(
        `SELECT ${selectList(WORKLOAD_STATE)} FROM workload_state`,
      );
      const allocations: AllocationStateRecord[] = await db.query(
        `SELECT ${selectList(ALLOCATION_STATE)} FROM allocation_state`,
      );
      expect(rows).toHaveLength(streams.length);
      for (const stream of streams) {
        const events = await store.readStream(stream);
        const state = foldRecorded(workloadDecider, events);
        const expected = workloadRecord({
          state,
          submittedAt: events[0].recordedAt,
          updatedAt: events.at(-1)!.recordedAt,
          lastRevision: events.length - 1,
        });
        const row = rows.find((r) => r.workload_id === state.workloadId)!;
        expect(instants(row)).toEqual(JSON.parse(JSON.stringify(expected)));
        for (const view of Object.values(state.allocations)) {
          const allocation = allocations.find((a) => a.allocation_id === view.allocationId);
          expect([view.allocationId, allocation?.status, allocation?.exit_code]).toEqual([
            view.allocationId,
            view.status,
            view.exitCode ?? null,
          ]);
        }
      }
    } finally {
      await store.close();
      await db.destroy();
      await database.drop();
    }
  });
});
