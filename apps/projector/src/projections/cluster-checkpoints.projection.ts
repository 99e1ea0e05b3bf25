import { CLUSTER_EVENT_TYPES, ClusterFold } from '@hcn/cluster';
import { Position, RecordedHcnEvent, comparePositions } from '@hcn/contracts';
import {
  CLUSTER_CHECKPOINT,
  ClusterCheckpointRecord,
  restoredCheckpoint,
  selectList,
} from '@hcn/read-models';
import type { EntityManager } from 'typeorm';
import type { Projection } from '../projection';

/** How many checkpoints stay: the newest `denseKept`, and of older ones every `thinnedEvery`-th (by seq). */
export interface CheckpointRetention {
  readonly denseKept: number;
  readonly thinnedEvery: number;
}

/** The newest 32 checkpoints, and every 32nd older one. */
const RETENTION: CheckpointRetention = { denseKept: 32, thinnedEvery: 32 };

/** Default cluster events between two checkpoints (HCN_CLUSTER_CHECKPOINT_EVENTS). */
export const DEFAULT_CLUSTER_CHECKPOINT_EVENTS = 500;

/** The last checkpoint written and the fold since it, as this projector process holds them. */
interface Folding {
  readonly fold: ClusterFold;
  /** The last stored checkpoint (undefined: none yet). */
  stored?: { readonly position: Position; readonly seq: number };
  /** Position of the last cluster event folded. */
  folded?: Position;
  /** Cluster events folded in all, and since the stored checkpoint. */
  total: number;
  pending: number;
}

/**
 * Projection of the cluster events into cluster_checkpoint: the cluster fold (the scheduler's own ClusterFold, fed in
 * log order) stored every `every` cluster events, so that a decision replay folds only the log after the latest
 * checkpoint before its basis instead of the whole log. The fold lives in this process between checkpoints; the
 * projection's own checkpoint stays at the last stored one while cluster events are folded past it (checkpointAt),
 * so a restart, or a batch written again after a failure, folds them again from it. The newest 32 checkpoints are
 * kept; of older ones every 32nd (an old decision's replay folds at most 32 spacings).
 */
export function clusterCheckpointsProjection(
  every = DEFAULT_CLUSTER_CHECKPOINT_EVENTS,
  retention = RETENTION,
): Projection {
  let folding: Folding | undefined;
  return {
    name: 'cluster-checkpoints',
    filter: { kind: 'eventTypePrefix', prefixes: CLUSTER_EVENT_TYPES },
    tables: [CLUSTER_CHECKPOINT.name],
    async apply(tx: EntityManager, events: readonly RecordedHcnEvent[]): Promise<void> {
      // not loaded yet, or events folded before come again (a restart of the runner, a rebuild): from the table
      if (!folding || (folding.folded && comparePositions(events[0].position, folding.folded) <= 0))
        folding = await loadLatest(tx);
      const after = folding.folded;
      const fresh = after ? events.filter((e) => comparePositions(e.position, after) > 0) : events;
      if (fresh.length === 0) return;
      for (const event of fresh) {
        folding.fold.apply(event);
        folding.folded = event.position;
        folding.total += 1;
        folding.pending += 1;
        if (!folding.stored || folding.pending >= every) await store(tx, folding, retention);
      }
    },
    checkpointAt(batchEnd: Position): Position {
      return folding?.pending && folding.stored ? folding.stored.position : batchEnd;
    },
  };
}

/** The fold restored from the latest stored checkpoint (a fresh one when none is stored). */
async function loadLatest(tx: EntityManager): Promise<Folding> {
  const [row]: ClusterCheckpointRecord[] = await tx.query(
    `SELECT ${selectList(CLUSTER_CHECKPOINT)} FROM cluster_checkpoint ORDER BY seq DESC LIMIT 1`,
  );
  if (!row) return { fold: new ClusterFold(), total: 0, pending: 0 };
  const { position, fold } = restoredCheckpoint(row);
  return {
    fold,
    stored: { position, seq: row.seq },
    folded: position,
    total: Number(row.cluster_events),
    pending: 0,
  };
}

/** Stores the fold as the next checkpoint and thins out the one that left the dense window. */
async function store(tx: EntityManager, folding: Folding, retention: CheckpointRetention): Promise<void> {
  const position = folding.folded!;
  const seq = folding.stored ? folding.stored.seq + 1 : 0;
  const state = folding.fold.checkpoint();
  await tx.query(
    `INSERT INTO cluster_checkpoint (commit, prepare, seq, cluster_events, nodes, state, written_at)
     VALUES ($1, $2, $3, $4, $5, $6, now())`,
    [
      String(position.commit),
      String(position.prepare),
      seq,
      folding.total,
      state.nodes.length,
      JSON.stringify(state),
    ],
  );
  const leaving = seq - retention.denseKept;
  if (leaving > 0 && leaving % retention.thinnedEvery !== 0)
    await tx.query('DELETE FROM cluster_checkpoint WHERE seq = $1', [leaving]);
  folding.stored = { position, seq };
  folding.pending = 0;
}
