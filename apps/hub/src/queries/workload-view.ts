import type { RecordedEvent } from '@hcn/contracts';
import { WorkloadState, workloadStatus } from '@hcn/domain';

/** One recorded step of a delegation chain, as audit replay shows it. */
export interface ChainStep {
  type: 'WorkloadDelegated' | 'DelegationRejected' | 'AllocationPlaced' | 'WorkloadUnschedulable';
  revision: number;
  recordedAt: string;
  data: unknown;
}

/** A workload as `GET /v1/workloads/:id` answers it: state, allocations and every hop, from its own stream. */
export function workloadView(state: WorkloadState, events: readonly RecordedEvent[]) {
  const chain = new Map<string, ChainStep[]>();
  for (const e of events) {
    if (
      !['WorkloadDelegated', 'DelegationRejected', 'AllocationPlaced', 'WorkloadUnschedulable'].includes(
        e.type,
      )
    )
      continue;
    const { instance, attempt } = e.data as { instance: number; attempt: number };
    const key = `${instance}/${attempt}`;
    chain.set(key, [
      ...(chain.get(key) ?? []),
      { type: e.type as ChainStep['type'], revision: e.revision, recordedAt: e.recordedAt, data: e.data },
    ]);
  }
  const first = events[0];
  return {
    workloadId: state.workloadId,
    name: state.spec?.name,
    namespace: state.spec?.namespace,
    status: workloadStatus(state),
    desired: state.desired,
    generation: state.generation,
    spec: state.spec,
    submittedAt: first?.recordedAt,
    submittedBy: first?.metadata.actor,
    revision: events.length - 1,
    instances: state.instances,
    allocations: Object.values(state.allocations),
    delegations: [...chain].map(([key, steps]) => {
      const [instance, attempt] = key.split('/').map(Number);
      return { instance, attempt, steps };
    }),
  };
}
