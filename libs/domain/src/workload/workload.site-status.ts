import type { DelegationStatus } from '@hcn/contracts';
import { DomainError } from '../errors';
import type { WorkloadCommand, WorkloadEvent } from './workload.commands';
import { stateAfter } from './service.rollout';
import type { AllocationView, InstanceView, WorkloadState } from './workload.state';

/**
 * Federation: what the site running a delegation reported of it (status flows back): the status as of `siteRevision`
 * of that site's workload stream (`siteHash`: that event's hash-chain link), and what it carries.
 */
export interface SiteStatusReport {
  readonly allocationId: string;
  readonly siteId: string;
  readonly siteWorkloadId: string;
  readonly status: DelegationStatus;
  readonly siteRevision: number;
  readonly siteHash?: string;
  readonly at: string;
  readonly pid?: number;
  readonly ready?: boolean;
  readonly exitCode?: number | null;
  readonly signal?: string | null;
  readonly reason?: string;
}

/** Decides an accepted command on the workload (the decider's own, passed in). */
type Decide = (command: WorkloadCommand, state: WorkloadState) => WorkloadEvent[];

/** Statuses of a taken delegation that a partition makes unknown. */
type Reachable = NonNullable<AllocationView['unknownFrom']>;
const REACHABLE: ReadonlySet<string> = new Set<Reachable>(['placed', 'running', 'stopping']);

/** True for an allocation its site's partition makes unknown. */
function reachable(allocation: AllocationView): allocation is AllocationView & { status: Reachable } {
  return REACHABLE.has(allocation.status);
}

/** A report must be of the workload the site took the delegation as (FEDERATION.SITE_WORKLOAD_MISMATCH). */
export function siteWorkloadMismatch(
  report: SiteStatusReport,
  state: WorkloadState,
): DomainError | undefined {
  const taken = state.allocations[report.allocationId]?.siteWorkloadId;
  if (!taken || taken === report.siteWorkloadId) return undefined;
  return new DomainError(
    'FEDERATION.SITE_WORKLOAD_MISMATCH',
    `Delegation ${report.allocationId} was taken as another workload of site ${report.siteId}`,
    { allocationId: report.allocationId, siteId: report.siteId },
  );
}

/** The site's anchor stamped on an event about the allocation (its stream revision and hash). */
function anchored(event: WorkloadEvent, report: SiteStatusReport): WorkloadEvent {
  const anchor = {
    siteRevision: report.siteRevision,
    ...(report.siteHash ? { siteHash: report.siteHash } : {}),
  };
  if (!('allocationId' in event.data) || event.data.allocationId !== report.allocationId) return event;
  switch (event.type) {
    case 'AllocationStarted':
      return { type: event.type, data: { ...event.data, ...anchor } };
    case 'AllocationReady':
      return { type: event.type, data: { ...event.data, ...anchor } };
    case 'AllocationNotReady':
      return { type: event.type, data: { ...event.data, ...anchor } };
    case 'AllocationCompleted':
      return { type: event.type, data: { ...event.data, ...anchor } };
    case 'AllocationFailed':
      return { type: event.type, data: { ...event.data, ...anchor } };
    case 'AllocationStopped':
      return { type: event.type, data: { ...event.data, ...anchor } };
    case 'AllocationLost':
      return { type: event.type, data: { ...event.data, ...anchor } };
    case 'AllocationReachable':
      return { type: event.type, data: { ...event.data, ...anchor } };
    default:
      return event;
  }
}

/** The existing lifecycle command a reported status amounts to (none for `accepted`). */
function lifecycleCommand(report: SiteStatusReport, place: string): WorkloadCommand | undefined {
  const { allocationId, at } = report;
  switch (report.status) {
    case 'accepted':
      return undefined;
    case 'running':
      return { type: 'RecordStarted', allocationId, nodeId: place, pid: report.pid ?? 0, at };
    case 'lost':
      return { type: 'MarkLost', allocationId, nodeId: place, reason: report.reason ?? 'lost', at };
    case 'completed':
    case 'failed':
    case 'stopped':
      return {
        type: 'RecordEnded',
        allocationId,
        nodeId: place,
        outcome: report.status,
        exitCode: report.exitCode ?? null,
        signal: report.signal ?? null,
        reason: report.reason ?? report.status,
        endedBy: 'SIGTERM',
        at,
      };
    default: {
      const never: never = report.status;
      return never;
    }
  }
}

/**
 * The events a site's status report causes, through the lifecycle commands nodes' reports use: the delegation taken
 * (when its answer was lost), back from `unknown` after a partition, started (and a service's readiness), ended or
 * lost; each stamped with the site's revision and hash. A report at or below the revision already recorded is a
 * repeat, and causes nothing (but the way back from `unknown`: the status of an unchanged workload asked after a
 * partition has the revision recorded before it).
 */
export function recordSiteStatus(
  report: SiteStatusReport,
  state: WorkloadState,
  decide: Decide,
): WorkloadEvent[] {
  const allocation = state.allocations[report.allocationId];
  const workloadId = state.workloadId;
  if (!allocation || !workloadId) return [];
  const events: WorkloadEvent[] = [];
  let current = state;
  const step = (more: WorkloadEvent[]) => {
    events.push(...more);
    current = stateAfter(current, more);
  };
  const { allocationId, siteId, siteWorkloadId, at } = report;
  if (!allocation.siteWorkloadId)
    step(decide({ type: 'RecordDelegationAccepted', allocationId, siteId, siteWorkloadId, at }, current));
  if (allocation.status === 'unknown') {
    const data = { workloadId, allocationId, nodeId: allocation.nodeId, siteId, at };
    step([{ type: 'AllocationReachable', data }]);
  }
  // a repeat (or an older report) tells nothing new, beyond the site being reachable again
  if (allocation.siteRevision !== undefined && report.siteRevision <= allocation.siteRevision)
    return events.map((e) => anchored(e, report));
  const command = lifecycleCommand(report, allocation.nodeId);
  if (command) step(decide(command, current));
  if (report.status === 'running' && report.ready !== undefined) {
    const readiness = { allocationId, nodeId: allocation.nodeId, ready: report.ready, at };
    step(decide({ type: 'RecordReadiness', ...readiness, reason: 'reported by its site' }, current));
  }
  return events.map((e) => anchored(e, report));
}

/** Federation: the site of a taken delegation went offline; it is `unknown` (neither running nor lost) until heard from. */
export function markUnknown(
  command: WorkloadCommand & { type: 'MarkUnknown' },
  state: WorkloadState,
): WorkloadEvent[] {
  const allocation = state.allocations[command.allocationId];
  if (!allocation || !state.workloadId || !allocation.siteWorkloadId || !reachable(allocation)) return [];
  const { allocationId, siteId, reason, at } = command;
  const data = {
    workloadId: state.workloadId,
    allocationId,
    nodeId: allocation.nodeId,
    siteId,
    reason,
    unknownAt: at,
  };
  return [{ type: 'AllocationUnknown', data }];
}

/** Only an `unknown` allocation is given up by an operator (WORKLOAD.ALLOCATION_NOT_UNKNOWN). */
export function notUnknown(state: WorkloadState, allocationId: string): DomainError | undefined {
  const status = state.allocations[allocationId]?.status;
  if (status === 'unknown') return undefined;
  return new DomainError(
    'WORKLOAD.ALLOCATION_NOT_UNKNOWN',
    `Allocation ${allocationId} is ${status ?? 'absent'}: only an unknown one (its site offline) is given up`,
    { allocationId, status },
  );
}

/** An operator gives an unknown allocation up: lost (the restart policy decides what follows). */
export function giveUp(command: WorkloadCommand & { type: 'GiveUp' }, state: WorkloadState): WorkloadEvent[] {
  const allocation = state.allocations[command.allocationId];
  if (allocation?.status !== 'unknown' || !state.workloadId) return [];
  const { allocationId, reason, at } = command;
  const data = { workloadId: state.workloadId, allocationId, nodeId: allocation.nodeId, reason, lostAt: at };
  return [{ type: 'AllocationLost', data }];
}

function withInstanceOf(
  state: WorkloadState,
  allocationId: string,
  status: InstanceView['status'],
): WorkloadState {
  const instance = state.instances.find((i) => i.allocationId === allocationId);
  if (!instance || instance.status === 'completed' || instance.status === 'failed') return state;
  const next = { ...instance, status };
  return { ...state, instances: state.instances.map((i) => (i.instance === next.instance ? next : i)) };
}

/** Folds AllocationUnknown: the allocation (and its instance) `unknown`, what it was kept to come back to. */
export function evolveUnknown(
  state: WorkloadState,
  event: WorkloadEvent & { type: 'AllocationUnknown' },
): WorkloadState {
  const allocation = state.allocations[event.data.allocationId];
  if (!allocation || !reachable(allocation)) return state;
  const unknown: AllocationView = { ...allocation, status: 'unknown', unknownFrom: allocation.status };
  const next = { ...state, allocations: { ...state.allocations, [allocation.allocationId]: unknown } };
  return withInstanceOf(next, allocation.allocationId, 'unknown');
}

/** Folds AllocationReachable: back to what it was before its site went offline. */
export function evolveReachable(
  state: WorkloadState,
  event: WorkloadEvent & { type: 'AllocationReachable' },
): WorkloadState {
  const allocation = state.allocations[event.data.allocationId];
  if (allocation?.status !== 'unknown') return state;
  const { unknownFrom, ...rest } = allocation;
  const status = unknownFrom ?? 'running';
  const next = {
    ...state,
    allocations: { ...state.allocations, [allocation.allocationId]: { ...rest, status } },
  };
  return withInstanceOf(next, allocation.allocationId, status);
}

/** Notes the site revision an event about an allocation records (reports at or below it are repeats). */
export function noteSiteRevision(state: WorkloadState, event: WorkloadEvent): WorkloadState {
  const data = event.data;
  if (!('siteRevision' in data) || data.siteRevision === undefined) return state;
  const allocation = state.allocations[data.allocationId];
  if (!allocation || (allocation.siteRevision ?? -1) >= data.siteRevision) return state;
  const noted = { ...allocation, siteRevision: data.siteRevision };
  return { ...state, allocations: { ...state.allocations, [allocation.allocationId]: noted } };
}
