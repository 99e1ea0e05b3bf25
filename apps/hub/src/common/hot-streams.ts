import { CommandEngine } from '@hcn/commands';
import {
  NodeCommand,
  NodeEvent,
  NodeState,
  QuotaCommand,
  QuotaEvent,
  QuotaState,
  WorkloadCommand,
  WorkloadEvent,
  WorkloadState,
  nodeDecider,
  quotaDecider,
  workloadDecider,
} from '@hcn/domain';
import type { EventStore } from '@hcn/eventstore';
import type { Position } from '@hcn/contracts';

/**
 * Streams written often and grown long (a node's reservations, a namespace's quota): states kept in memory,
 * commands group-committed, conflicts with other hubs retried with jitter. As many streams as a cluster has nodes
 * or namespaces; a stream no longer kept is read again.
 */
const GROUP_COMMITTED = { cachedStreams: 100_000, groupCommit: true, maxAttempts: 40, jitter: true };
/** Workloads this hub placed last, whose agents' reports follow at once: the latest 10,000. */
const RECENT_WORKLOADS = { cachedStreams: 10_000 };

/**
 * The hub's engines on hot streams: node reservations, namespace quotas, and the workloads it wrote last. `nodes` is
 * the hub's one write path into `node-<id>` (placement, registration, operator commands, liveness, device health).
 */
export class HotStreams {
  readonly nodes: CommandEngine<NodeCommand, NodeEvent, NodeState>;
  readonly quotas: CommandEngine<QuotaCommand, QuotaEvent, QuotaState>;
  readonly workloads: CommandEngine<WorkloadCommand, WorkloadEvent, WorkloadState>;

  /** `onNodesAppended`: told of every append to a node stream (the cluster view folds them at once). */
  constructor(
    readonly store: EventStore,
    onNodesAppended?: (events: readonly NodeEvent[], firstRevision: number, position: Position) => void,
  ) {
    this.nodes = new CommandEngine(store, nodeDecider, {
      ...GROUP_COMMITTED,
      ...(onNodesAppended
        ? {
            onAppended: (_: string, events, first, position) => onNodesAppended(events, first, position),
          }
        : {}),
    });
    this.quotas = new CommandEngine(store, quotaDecider, GROUP_COMMITTED);
    this.workloads = new CommandEngine(store, workloadDecider, RECENT_WORKLOADS);
  }
}
