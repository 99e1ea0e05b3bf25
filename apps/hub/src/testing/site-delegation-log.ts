import { CompactDecision, NewEvent, workloadSpecSchema } from '@hcn/contracts';
import { randomUUID } from 'node:crypto';
import { specEvent } from '../../../projector/src/testing/scenario-log';

/**
 * A finished workload's log as a delegating hub records it (specs of the read side, written straight to the store):
 * the submission in `namespace`, per site in `sites` (attempt by attempt) an AllocationDelegated and that site's
 * DelegationRejected, then a stop request, so that the hub the log is written to has nothing left to send or place.
 */
export function siteDelegationLog(
  workloadId: string,
  namespace: string,
  sites: readonly string[],
): NewEvent[] {
  const spec = workloadSpecSchema.parse({
    name: 'fed',
    namespace,
    command: 'true',
    resources: { cpuMillis: 100, memoryBytes: 2 ** 20 },
  });
  const decision = (siteId: string): CompactDecision => ({
    hops: [
      {
        scope: 'federation-children',
        policy: 'least-loaded',
        to: 0,
        members: 2,
        judged: 2,
        kept: [['n', `site:${siteId}`, 80]],
      },
    ],
    topK: 5,
  });
  const events = [specEvent('WorkloadSubmitted', { workloadId, spec, idempotencyKey: null })];
  sites.forEach((siteId, attempt) => {
    const allocationId = randomUUID();
    const at = { workloadId, instance: 0, attempt };
    const data = { ...at, allocationId, generation: 1, siteId, relation: 'child', resources: spec.resources };
    events.push(specEvent('AllocationDelegated', { ...data, decision: decision(siteId) }));
    events.push(
      specEvent('DelegationRejected', {
        ...at,
        scope: `site:${siteId}`,
        reason: 'unschedulable',
        detail: 'no node fits',
        candidates: [],
        allocationId,
        siteId,
        code: 'WORKLOAD.UNSCHEDULABLE',
        rejectedAt: new Date().toISOString(),
      }),
    );
  });
  events.push(
    specEvent('WorkloadStopRequested', { workloadId, reason: 'spec: written straight to the log' }),
  );
  return events;
}
