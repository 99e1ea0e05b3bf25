import type { DomainDefinition, ResourceAmounts, SiteSummary } from '@hcn/contracts';
import { NodeState, initialNodeState } from '@hcn/domain';

/** A node's folded state as a checkpoint stores it: its reservations as entries, in the map's own order. */
export type StoredNodeState = Omit<NodeState, 'reservations'> & {
  readonly reservations: ReadonlyArray<readonly [string, ResourceAmounts]>;
};

/** A child site as a checkpoint stores it (SiteBook's entry, its pending delegations as entries). */
export interface StoredSite {
  readonly siteId: string;
  readonly online: boolean;
  readonly summary?: SiteSummary;
  readonly revision: number;
  readonly pending: ReadonlyArray<readonly [string, ResourceAmounts]>;
}

/**
 * Everything a ClusterFold holds after the cluster events up to one log position, as plain JSON, every collection
 * in the fold's own iteration order (the scheduler's ties and samples follow it): the checkpoint a replay starts
 * from instead of the start of the log. The position is kept beside it (ClusterFold.restore).
 */
export interface ClusterCheckpoint {
  readonly version: 1;
  readonly nodes: ReadonlyArray<readonly [string, StoredNodeState]>;
  /** Per node stream, the revision of the last event applied (a node may have one and no state). */
  readonly revisions: ReadonlyArray<readonly [string, number]>;
  readonly domains: readonly DomainDefinition[];
  /** Placements counted per domain (round-robin reads them). */
  readonly placements: ReadonlyArray<readonly [string, number]>;
  /** Per allocation: the nodes reserving for it and its workload when the fold saw its reservation. */
  readonly holders: ReadonlyArray<readonly [string, readonly string[], string | null]>;
  readonly sites: readonly StoredSite[];
}

/** A node state as stored in a checkpoint. */
export function storedNodeState(state: NodeState): StoredNodeState {
  return { ...state, reservations: [...state.reservations.entries()] };
}

/** A node state back from a checkpoint: its reservations rebuilt in the stored order (so iteration matches). */
export function restoredNodeState(stored: StoredNodeState): NodeState {
  let reservations = initialNodeState.reservations;
  for (const [allocationId, held] of stored.reservations) reservations = reservations.set(allocationId, held);
  return { ...stored, reservations };
}
