import type { RecordedHcnEvent, StreamHead } from '@hcn/contracts';
import type { WorkloadChain } from '../chain/chain.model';
import type { SiteHop } from './stitched.model';

/**
 * A head of the other site's stream that an event of this log recorded (`siteRevision`, `siteHash` in its data,
 * as status reports from that site may carry), read without trusting the event's type.
 */
function anchorOf(data: object): StreamHead | undefined {
  const revision: unknown = Reflect.get(data, 'siteRevision');
  const hash: unknown = Reflect.get(data, 'siteHash');
  return typeof revision === 'number' && typeof hash === 'string' ? { revision, hash } : undefined;
}

/** The seq of the last hop of the decision that handed allocation `allocationId` to a site. */
function hopSeqOf(chain: WorkloadChain | undefined, allocationId: string): number | undefined {
  const decision = chain?.decisions.find(
    (d) => d.outcome.kind === 'placed' && d.outcome.site && d.outcome.allocationId === allocationId,
  );
  return decision?.hops.at(-1)?.seq;
}

/**
 * The hand-overs of a workload to other sites, from its stream on this site: each AllocationDelegated (the
 * allocation id is the delegation id), the other site's workload id from DelegationAccepted, and the heads of the
 * other site's stream that later events of that allocation recorded. `chain` (the same stream's) gives each the
 * seq of its hop.
 */
export function siteHopsOf(events: readonly RecordedHcnEvent[], chain?: WorkloadChain): SiteHop[] {
  const first = events[0];
  const namespace = first?.type === 'WorkloadSubmitted' ? first.data.spec.namespace : '';
  type Found = {
    siteId: string;
    relation: 'child' | 'peer';
    remoteWorkloadId?: string;
    anchors: StreamHead[];
  };
  const hops = new Map<string, Found>();
  for (const event of events) {
    if (event.type === 'AllocationDelegated') {
      const { allocationId, siteId, relation } = event.data;
      hops.set(allocationId, { siteId, relation, anchors: [] });
      continue;
    }
    const allocationId: unknown = Reflect.get(event.data, 'allocationId');
    const hop = typeof allocationId === 'string' ? hops.get(allocationId) : undefined;
    if (!hop) continue;
    if (event.type === 'DelegationAccepted') hop.remoteWorkloadId = event.data.siteWorkloadId;
    const anchor = anchorOf(event.data);
    if (anchor) hop.anchors.push(anchor);
  }
  return [...hops].map(([delegationId, hop]) => {
    const hopSeq = hopSeqOf(chain, delegationId);
    return { ...hop, delegationId, namespace, ...(hopSeq !== undefined ? { hopSeq } : {}) };
  });
}
