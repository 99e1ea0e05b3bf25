import type { RecordedHcnEvent } from '@hcn/contracts';
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
