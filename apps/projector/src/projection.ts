import type { Position, RecordedHcnEvent } from '@hcn/contracts';
import type { EventFilter } from '@hcn/eventstore';
import type { EntityManager } from 'typeorm';

/** What a batch changed, for the change feed (NOTIFY hcn_read_models). */
export interface ChangeSet {
  readonly domains: Set<string>;
  readonly nodes: Set<string>;
  readonly workloads: Set<string>;
  /** Namespaces whose quota usage changed. */
  readonly namespaces: Set<string>;
  /** Task queues whose taskqueue_state row changed. */
  readonly taskqueues: Set<string>;
  /** Federation sites whose site_state row changed (state or last summary). */
  readonly sites: Set<string>;
}

/** A read-model projection: applies ordered batches of events inside the runner's transaction. */
export interface Projection {
  readonly name: string;
  readonly filter: EventFilter;
  /** Tables the projection owns (truncated by a rebuild). */
  readonly tables: readonly string[];
  apply(tx: EntityManager, events: readonly RecordedHcnEvent[], changes: ChangeSet): Promise<void>;
  /**
   * Where its checkpoint goes after a batch that ends at `batchEnd` (default: there). A projection that holds state
   * in memory between writes keeps it at its last write, so that a restart applies again what it had not written.
   */
  checkpointAt?(batchEnd: Position): Position;
}

/** An empty change set. */
export function emptyChanges(): ChangeSet {
  return {
    domains: new Set(),
    nodes: new Set(),
    workloads: new Set(),
    namespaces: new Set(),
    taskqueues: new Set(),
    sites: new Set(),
  };
}

/** True when the change set names nothing. */
export function isEmptyChangeSet(changes: ChangeSet): boolean {
  const { domains, nodes, workloads, namespaces, taskqueues, sites } = changes;
  return [domains, nodes, workloads, namespaces, taskqueues, sites].every((s) => s.size === 0);
}
