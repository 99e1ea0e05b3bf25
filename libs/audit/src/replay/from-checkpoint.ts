import type { Position } from '@hcn/contracts';
import { RecordedBasis } from '@hcn/cluster';
import type { ClusterFoldLike, DecisionBasis } from './decision-replay';

/** A fold of the cluster events up to a log position, stored at that position (a cluster checkpoint). */
export interface FoldAt {
  readonly position: Position;
  readonly fold: ClusterFoldLike;
}

/**
 * The latest cluster checkpoint at or before a position, restored (undefined when none is): where a replay may
 * start instead of the start of the log.
 */
export type ClusterCheckpoints = (atOrBefore: Position) => Promise<FoldAt | undefined>;

/**
 * The last log position a replay of this decision may start from a checkpoint at: its recorded basis's (every
 * cluster event up to it is part of the view it was taken on). Undefined for decisions recorded without a basis,
 * whose cutoff (their own reservation) lies somewhere before their event: they replay from the start.
 */
export function checkpointLimit(basis: DecisionBasis): Position | undefined {
  return basis.basis && new RecordedBasis(basis.basis).at;
}
