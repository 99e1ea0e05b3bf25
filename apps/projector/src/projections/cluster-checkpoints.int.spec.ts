import { CLUSTER_EVENT_TYPES, ClusterFold } from '@hcn/cluster';
import { RecordedHcnEvent, comparePositions } from '@hcn/contracts';
import { PostgresEventStore } from '@hcn/eventstore';
import {
  CLUSTER_CHECKPOINT,
  ClusterCheckpointRecord,
  latestClusterCheckpoint,
  loadCheckpoint,
  openReadModels,
  selectList,
} from '@hcn/read-models';
import { createTestDatabase, describeWithPostgres } from '@hcn/testing';
import type { DataSource } from 'typeorm';
import { startProjector } from '../projector';
import { rebuildProjections } from '../rebuild';
import { createProjections } from '.';
import { clusterCheckpointsProjection } from './cluster-checkpoints.projection';
import { scenarioIds, writeOutcomes, writePlacements, writeSetup } from '../testing/scenario-log';

const EVERY = 3;

/** The stored checkpoints, oldest first. */
const rowsOf = (db: DataSource): Promise<ClusterCheckpointRecord[]> =>
  db.query(`SELECT ${selectList(CLUSTER_CHECKPOINT)} FROM cluster_checkpoint ORDER BY seq`);

/** What a fold fed every cluster event up to a row's position from the start of the log holds. */
function expectedAt(cluster: readonly RecordedHcnEvent[], row: ClusterCheckpointRecord) {
  const position = { commit: BigInt(row.commit), prepare: BigInt(row.prepare) };
  const upTo = cluster.filter((e) => comparePositions(e.position, position) <= 0);
  const fold = new ClusterFold();
  upTo.forEach((e) => fold.apply(e));
  return { clusterEvents: upTo.length, state: JSON.parse(JSON.stringify(fold.checkpoint())) };
}

describeWithPostgres('cluster checkpoints projection (real PostgreSQL)', () => {
  it('stores the fold every few cluster events, exactly as folded from the start, across restarts and a rebuild', async () => {
    const database = await createTestDatabase('proj_cluster_cp');
    const store = await PostgresEventStore.connect({
      connectionString: database.url,
      polling: { pollIntervalMs: 50 },
    });
    const db = await openReadModels(database.url, 4);
    try {
      const ids = scenarioIds();
      const run = async () => {
        const projector = await startProjector(
          store,
          db,
          { maxBatch: 4 },
          { clusterCheckpointEvents: EVERY },
        );
        await projector.whenCaughtUp();
        await projector.stop();
      };
      await writeSetup(store, ids);
      await run();
      // the projection's checkpoint is kept at its last stored fold while cluster events are folded past it
      const kept = await loadCheckpoint(db.manager, 'cluster-checkpoints');
      const last = (await rowsOf(db)).at(-1)!;
      expect(String(kept?.commit)).toBe(last.commit);
      await writePlacements(store, ids);
      await run(); // a new process: restores the latest fold and goes on from it
      await writeOutcomes(store, ids);
      await run();

      const cluster = await store.readAll({
        filter: { kind: 'eventTypePrefix', prefixes: CLUSTER_EVENT_TYPES },
      });
      const rows = await rowsOf(db);
      expect(rows.length).toBeGreaterThanOrEqual(Math.floor(cluster.length / EVERY) - 1);
      expect(rows.map((r) => r.seq)).toEqual(rows.map((_, i) => i));
      // the first at the first cluster event, then one every EVERY, wherever batches and restarts fall
      expect(rows.map((r) => Number(r.cluster_events))).toEqual(rows.map((_, i) => 1 + i * EVERY));
      for (const row of rows) {
        const expected = expectedAt(cluster, row);
        expect({ seq: row.seq, events: Number(row.cluster_events), state: JSON.parse(row.state) }).toEqual({
          seq: row.seq,
          events: expected.clusterEvents,
          state: expected.state,
        });
      }
      expect(rows.at(-1)!.nodes).toBe(ids.nodes.length);

      // the latest at or before a position, restored, is the fold of the log up to it
      const middle = cluster[Math.floor(cluster.length / 2)];
      const found = await latestClusterCheckpoint(db, middle.position);
      expect(found).toBeDefined();
      expect(
        comparePositions({ commit: BigInt(found!.commit), prepare: BigInt(found!.prepare) }, middle.position),
      ).toBeLessThanOrEqual(0);
      const restored = ClusterFold.restore(JSON.parse(found!.state), middle.position);
      expect(JSON.parse(JSON.stringify(restored.checkpoint()))).toEqual(expectedAt(cluster, found!).state);
      expect(await latestClusterCheckpoint(db, { commit: 0n, prepare: 0n })).toBeUndefined();

      // a rebuild writes them again (the projection reloads: events it had folded come again from the start)
      const before = rows.map((r) => [r.commit, r.state]);
      await rebuildProjections(store, db, createProjections({ clusterCheckpointEvents: EVERY }), {
        batchEvents: 4,
        pageSize: 4,
      });
      const again = await rowsOf(db);
      for (const row of again) expect(JSON.parse(row.state)).toEqual(expectedAt(cluster, row).state);
      expect(again.length).toBeGreaterThan(0);
      expect(before.length).toBeGreaterThan(0);
    } finally {
      await store.close();
      await db.destroy();
      await database.drop();
    }
  });

  it('keeps the newest checkpoints and thins older ones out, each still the fold of the log up to it', async () => {
    const database = await createTestDatabase('proj_cluster_thin');
    const store = await PostgresEventStore.connect({ connectionString: database.url });
    const db = await openReadModels(database.url, 4);
    try {
      const ids = scenarioIds();
      await writeSetup(store, ids);
      await writePlacements(store, ids);
      await writeOutcomes(store, ids);
      const projection = clusterCheckpointsProjection(1, { denseKept: 4, thinnedEvery: 4 });
      await rebuildProjections(store, db, [projection], { batchEvents: 5, pageSize: 5 });
      const cluster = await store.readAll({
        filter: { kind: 'eventTypePrefix', prefixes: CLUSTER_EVENT_TYPES },
      });
      const rows = await rowsOf(db);
      const last = cluster.length - 1; // one checkpoint per cluster event, seq 0 at the first
      const older = Array.from({ length: last - 3 }, (_, seq) => seq).filter((seq) => seq % 4 === 0);
      expect(rows.map((r) => r.seq)).toEqual([...older, last - 3, last - 2, last - 1, last]);
      for (const row of rows) expect(JSON.parse(row.state)).toEqual(expectedAt(cluster, row).state);
    } finally {
      await store.close();
      await db.destroy();
      await database.drop();
    }
  });
});
