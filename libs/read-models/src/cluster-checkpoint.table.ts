import { ClusterCheckpoint, ClusterFold } from '@hcn/cluster';
import type { Position } from '@hcn/contracts';
import type { EntityManager } from 'typeorm';
import { defineTable, selectList } from './table';

/** One cluster_checkpoint row: the cluster fold after every cluster event up to a log position. */
export interface ClusterCheckpointRecord {
  /** The position of the last cluster event folded (bigints as text, as `pg` reads them). */
  commit: string;
  prepare: string;
  /** Its number among the checkpoints written, from 0 (older ones are thinned out by it). */
  seq: number;
  /** Cluster events folded from the start of the log up to it. */
  cluster_events: string;
  nodes: number;
  /** The ClusterCheckpoint as JSON text (text, not jsonb: read back whole, it skips jsonb's re-serialisation). */
  state: string;
  written_at: string;
}

/** The cluster_checkpoint table: folds of the cluster kept every so many cluster events, for replays to start from. */
export const CLUSTER_CHECKPOINT = defineTable<ClusterCheckpointRecord>({
  name: 'cluster_checkpoint',
  key: ['commit', 'prepare'],
  columns: {
    commit: 'bigint',
    prepare: 'bigint',
    seq: 'int',
    cluster_events: 'bigint',
    nodes: 'int',
    state: 'text',
    written_at: 'timestamptz',
  },
});

/** The latest stored cluster checkpoint at or before a log position (undefined: none is). */
export async function latestClusterCheckpoint(
  manager: Pick<EntityManager, 'query'>,
  atOrBefore: Position,
): Promise<ClusterCheckpointRecord | undefined> {
  const [row]: ClusterCheckpointRecord[] = await manager.query(
    `SELECT ${selectList(CLUSTER_CHECKPOINT)} FROM cluster_checkpoint
      WHERE (commit, prepare) <= ($1::bigint, $2::bigint) ORDER BY commit DESC, prepare DESC LIMIT 1`,
    [String(atOrBefore.commit), String(atOrBefore.prepare)],
  );
  return row;
}

/** A stored checkpoint's position and its fold restored (how a row becomes a ClusterFold again). */
export function restoredCheckpoint(row: ClusterCheckpointRecord): { position: Position; fold: ClusterFold } {
  const position = { commit: BigInt(row.commit), prepare: BigInt(row.prepare) };
  return { position, fold: ClusterFold.restore(JSON.parse(row.state) as ClusterCheckpoint, position) };
}
