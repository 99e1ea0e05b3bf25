import { NODE_LOSS_ACTOR_ID, inParallel } from '@hcn/contracts';
import { ACTIVE_ALLOCATION, WorkloadState } from '@hcn/domain';
import type { EventStore } from '@hcn/eventstore';
import type { Clock } from '../tokens';
import { markAllocationLost } from './mark-lost';
import type { NodeWentOffline } from './saga-facts';
import { Logger } from '@nestjs/common';

const logger = new Logger('workload-saga');

/** The active allocations, as [workload id, allocation id], that the offline node of `event` held. */
export function activeOn(
  event: NodeWentOffline,
  workloads: Iterable<[string, WorkloadState]>,
): Array<[string, string]> {
  const { nodeId } = event.data;
  const lost: Array<[string, string]> = [];
  for (const [workloadId, state] of workloads) {
    for (const a of Object.values(state.allocations)) {
      if (a.nodeId === nodeId && ACTIVE_ALLOCATION.has(a.status)) lost.push([workloadId, a.allocationId]);
    }
  }
  return lost;
}

/**
 * Records AllocationLost for each allocation of a node that went offline (four side by side, failures logged);
 * the workload's restart policy then makes its instance wait for a new placement, which the saga schedules.
 */
export function markLost(
  store: EventStore,
  clock: Clock,
  event: NodeWentOffline,
  lost: Array<[string, string]>,
): void {
  const { nodeId } = event.data;
  void inParallel(lost, 4, async ([workloadId, allocationId]) => {
    await markAllocationLost(store, {
      workloadId,
      allocationId,
      reason:
        event.type === 'NodeDeregistered' ? `node ${nodeId} was deregistered` : `node ${nodeId} went offline`,
      by: NODE_LOSS_ACTOR_ID,
      cause: event.eventId,
      now: clock(),
      at: event.metadata.occurredAt,
    }).catch((error: Error) => logger.error(`lost ${allocationId}: ${error.message}`));
  });
}
