import type { DelegatedFrom, DelegationStatus, DelegationStatusReport } from '@hcn/contracts';
import { AllocationView, WorkloadState, workloadStatus } from '@hcn/domain';

/** The workload event types whose effect a site reports to the site that delegated the workload. */
export const REPORTED_EVENT_TYPES = [
  'WorkloadSubmitted',
  'AllocationStarted',
  'AllocationReady',
  'AllocationNotReady',
  'AllocationCompleted',
  'AllocationFailed',
  'AllocationLost',
  'AllocationStopped',
  'WorkloadDeleted',
];

/** A delegated workload's status for its delegating site, from this site's workload status. */
export function delegationStatusOf(state: WorkloadState): DelegationStatus {
  const status = workloadStatus(state);
  switch (status) {
    case 'running':
    case 'stopping':
      return 'running';
    case 'completed':
    case 'failed':
    case 'lost':
    case 'stopped':
      return status;
    case 'deleted':
      return 'stopped';
    default:
      return 'accepted'; // starting, pending, unschedulable: admitted here, not running yet
  }
}

/** The allocation a report speaks of: the current attempt of the first instance, else the latest placed. */
function currentAllocation(state: WorkloadState): AllocationView | undefined {
  const instance = state.instances.find((i) => i.allocationId);
  const id = instance?.allocationId;
  if (id && state.allocations[id]) return state.allocations[id];
  return Object.values(state.allocations).at(-1);
}

/** What an ended allocation tells: exit code, and the reason of a failure, loss or stop. */
function ending(allocation: AllocationView | undefined): Partial<DelegationStatusReport> {
  if (!allocation) return {};
  return {
    ...(allocation.exitCode !== undefined ? { exitCode: allocation.exitCode } : {}),
    ...(allocation.reason ? { reason: allocation.reason.slice(0, 2000) } : {}),
  };
}

/** The recorded event a report is about: its id, stream revision, time and hash-chain link. */
export interface ReportedEvent {
  readonly eventId: string;
  readonly revision: number;
  readonly recordedAt: string;
  readonly metadata?: { readonly hash?: string };
}

/**
 * The status report of a delegated workload as of one of its events (`state`: the workload folded up to and with it):
 * its status for the delegating site and what that status carries (pid and readiness while running, exit code and
 * reason once ended), keyed by the event so the delegating site recognises a repeat.
 */
export function statusReport(
  siteId: string,
  from: DelegatedFrom,
  state: WorkloadState,
  event: ReportedEvent,
): DelegationStatusReport {
  const status = delegationStatusOf(state);
  const allocation = currentAllocation(state);
  const running = status === 'running' && allocation?.status === 'running';
  return {
    delegationId: from.delegationId,
    siteId,
    parentWorkloadId: from.workloadId,
    workloadId: state.workloadId ?? '',
    revision: event.revision,
    eventId: event.eventId,
    ...(event.metadata?.hash ? { hash: event.metadata.hash } : {}),
    status,
    at: event.recordedAt,
    ...(running && allocation.pid !== undefined ? { pid: allocation.pid } : {}),
    ...(running && allocation.ready !== undefined ? { ready: allocation.ready } : {}),
    ...(status === 'running' || status === 'accepted' ? {} : ending(allocation)),
  };
}
