import { assertNever } from '../errors';
import { rolloutStep, stateAfter } from './service.rollout';
import type { AllocationEnd, WorkloadCommand, WorkloadEvent } from './workload.commands';
import { ACTIVE_ALLOCATION, WorkloadState } from './workload.state';

/** The end of an active allocation as its node (or site) reported it: completed, failed or stopped. */
export function recordEnded(end: AllocationEnd, state: WorkloadState): WorkloadEvent[] {
  const allocation = state.allocations[end.allocationId];
  const workloadId = state.workloadId;
  if (!allocation || !workloadId || !ACTIVE_ALLOCATION.has(allocation.status)) return [];
  const common = {
    workloadId,
    allocationId: end.allocationId,
    nodeId: allocation.nodeId,
    ...(end.usage ? { usage: end.usage } : {}),
  };
  switch (end.outcome) {
    case 'completed':
      return [
        { type: 'AllocationCompleted', data: { ...common, exitCode: end.exitCode ?? 0, endedAt: end.at } },
      ];
    case 'failed':
      return [
        {
          type: 'AllocationFailed',
          data: {
            ...common,
            reason: end.reason,
            exitCode: end.exitCode,
            signal: end.signal,
            endedAt: end.at,
          },
        },
      ];
    case 'stopped':
      return [
        {
          type: 'AllocationStopped',
          data: {
            ...common,
            endedBy: end.endedBy,
            exitCode: end.exitCode,
            signal: end.signal,
            endedAt: end.at,
          },
        },
      ];
    default:
      return assertNever(end.outcome);
  }
}

/** A service's readiness change, and the rolling replacement's next step once a replica is ready again. */
export function recordReadiness(
  command: WorkloadCommand & { type: 'RecordReadiness' },
  state: WorkloadState,
): WorkloadEvent[] {
  const allocation = state.allocations[command.allocationId];
  const workloadId = state.workloadId;
  if (!workloadId || allocation?.status !== 'running' || allocation.ready === undefined) return [];
  if (allocation.ready === command.ready) return [];
  const base = {
    workloadId,
    allocationId: allocation.allocationId,
    nodeId: allocation.nodeId,
    at: command.at,
  };
  const event: WorkloadEvent = command.ready
    ? { type: 'AllocationReady', data: base }
    : { type: 'AllocationNotReady', data: { ...base, reason: command.reason } };
  return command.ready ? [event, ...rolloutStep(stateAfter(state, [event]), 'rolling update')] : [event];
}
