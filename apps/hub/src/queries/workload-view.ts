import {
  expandDecision,
  heartbeatStream,
  isEventOf,
  isEventOfTypes,
  type MeasuredUsage,
  type RecordedEventOf,
  type RecordedHcnEvent,
} from '@hcn/contracts';
import type { EventStore } from '@hcn/eventstore';
import { WorkloadState, workloadStatus } from '@hcn/domain';

/** The event types of a delegation chain's steps. */
const CHAIN_STEP_TYPES = {
  WorkloadDelegated: true,
  DelegationRejected: true,
  AllocationPlaced: true,
  WorkloadUnschedulable: true,
};

/** One recorded step of a delegation chain, as audit replay shows it. */
export interface ChainStep {
  type: keyof typeof CHAIN_STEP_TYPES;
  revision: number;
  recordedAt: string;
  data: unknown;
}

/**
 * The steps one event records, as the timeline shows them: older logs hold one per event; a decision recorded in its
 * outcome event (`decision`) gives its hops and rejections in the long form of the older events, then the outcome.
 */
function stepsOf(e: RecordedEventOf<keyof typeof CHAIN_STEP_TYPES>): ChainStep[] {
  const at = { revision: e.revision, recordedAt: e.recordedAt };
  if ((e.type !== 'AllocationPlaced' && e.type !== 'WorkloadUnschedulable') || !e.data.decision)
    return [{ type: e.type, ...at, data: e.data }];
  const { decision, ...outcome } = e.data;
  const { workloadId, instance, attempt } = e.data;
  const base = { workloadId, instance, attempt };
  const { hops, rejections } = expandDecision(decision);
  return [
    ...hops.map((h) => ({ type: 'WorkloadDelegated' as const, ...at, data: { ...base, ...h } })),
    ...rejections.map((r) => ({ type: 'DelegationRejected' as const, ...at, data: { ...base, ...r } })),
    { type: e.type, ...at, data: outcome },
  ];
}

/**
 * A workload as `GET /v1/workloads/:id` answers it: state, allocations (with measured usage: the final one of an
 * ended allocation, else the latest heartbeat's in `live`) and every hop, from its own stream.
 */
export function workloadView(
  state: WorkloadState,
  events: readonly RecordedHcnEvent[],
  live: ReadonlyMap<string, MeasuredUsage> = new Map(),
) {
  const chain = new Map<string, ChainStep[]>();
  for (const e of events) {
    if (!isEventOfTypes(e, CHAIN_STEP_TYPES)) continue;
    const { instance, attempt } = e.data;
    const key = `${instance}/${attempt}`;
    chain.set(key, [...(chain.get(key) ?? []), ...stepsOf(e)]);
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
    allocations: Object.values(state.allocations).map((a) => {
      const usage = a.usage ?? live.get(a.allocationId);
      return usage ? { ...a, usage } : a;
    }),
    delegations: [...chain].map(([key, steps]) => {
      const [instance, attempt] = key.split('/').map(Number);
      return { instance, attempt, steps };
    }),
  };
}

/** The latest measured usage of running allocations, from their nodes' last heartbeats (one read per node). */
export async function liveUsage(
  store: EventStore,
  state: WorkloadState,
): Promise<Map<string, MeasuredUsage>> {
  const running = Object.values(state.allocations).filter(
    (a) => a.status === 'running' || a.status === 'stopping',
  );
  const usage = new Map<string, MeasuredUsage>();
  await Promise.all(
    [...new Set(running.map((a) => a.nodeId))].map(async (nodeId) => {
      const [last] = await store.readStream(heartbeatStream(nodeId), { direction: 'backwards', maxCount: 1 });
      if (!isEventOf(last, 'NodeHeartbeatRecorded')) return;
      for (const { allocationId, ...measured } of last.data.allocationUsage ?? [])
        usage.set(allocationId, measured);
    }),
  );
  return usage;
}
