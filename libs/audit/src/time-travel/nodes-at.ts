import { RecordedHcnEvent, ResourceAmounts, nodeStream } from '@hcn/contracts';
import { NO_RESOURCES, NodeEvent, NodeState, addAmounts, nodeDecider } from '@hcn/domain';
import { StreamAt } from './stream-at';
import { NodeView, nodeView } from './time-travel';

/** One member node of a domain as of an instant. */
export interface DomainMember extends NodeView {
  readonly nodeId: string;
}

/** A domain's members as of an instant, their counts (draining: those of them draining), capacity and reserved. */
export interface DomainMembers {
  readonly members: DomainMember[];
  readonly nodes: { readonly online: number; readonly offline: number; readonly draining: number };
  readonly capacity: ResourceAmounts;
  readonly reserved: ResourceAmounts;
}

/** Stream prefix of the node streams a NodesAt folds (the `$all` filter of its scan). */
export const NODE_STREAM_PREFIX = nodeStream('');

/**
 * Every node's state as of an instant, folded event by event from the `node-<id>` streams (in log order) with the
 * node decider's evolve, as node time travel folds one node; other streams are ignored.
 */
export class NodesAt {
  private readonly nodes = new Map<string, StreamAt<NodeState, NodeEvent>>();
  private readonly domainsSeen = new Set<string>();

  constructor(/** The instant, in epoch milliseconds. */ readonly atMs: number) {}

  /** Folds the next event of the log. */
  accept(event: RecordedHcnEvent): void {
    if (!event.streamId.startsWith(NODE_STREAM_PREFIX)) return;
    if (event.type === 'NodeRegistered' || event.type === 'NodeReregistered') {
      this.domainsSeen.add(event.data.domainId);
    }
    let fold = this.nodes.get(event.streamId);
    if (!fold) {
      fold = new StreamAt<NodeState, NodeEvent>(nodeDecider, this.atMs);
      this.nodes.set(event.streamId, fold);
    }
    fold.accept(event);
  }

  /** True when any node registered into the domain at any time (also after the instant). */
  everHad(domainId: string): boolean {
    return this.domainsSeen.has(domainId);
  }

  /** The domain's members as of the instant: registered into it by then and not deregistered, by node id. */
  domain(domainId: string): DomainMembers {
    const members = [...this.nodes]
      .map(([streamId, fold]) => ({
        nodeId: streamId.slice(NODE_STREAM_PREFIX.length),
        ...nodeView(fold.state),
      }))
      .filter((m) => m.domainId === domainId && (m.status === 'online' || m.status === 'offline'))
      .sort((a, b) => (a.nodeId < b.nodeId ? -1 : a.nodeId > b.nodeId ? 1 : 0));
    return {
      members,
      nodes: {
        online: members.filter((m) => m.status === 'online').length,
        offline: members.filter((m) => m.status === 'offline').length,
        draining: members.filter((m) => m.draining).length,
      },
      capacity: members.map((m) => m.capacity).reduce(addAmounts, NO_RESOURCES),
      reserved: members.map((m) => m.reserved).reduce(addAmounts, NO_RESOURCES),
    };
  }
}
