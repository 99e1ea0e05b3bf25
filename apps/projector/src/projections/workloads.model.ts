import type { ResourceAmounts, WorkloadSpec } from '@hcn/contracts';
import {
  AllocationStatus,
  InstanceStatus,
  TERMINAL_ALLOCATION_STATUSES,
  WorkloadInstance,
  WorkloadStatus,
} from '@hcn/read-models';

/** A workload as the projection holds it in memory while applying a batch (mirrors a workload_state row). */
export interface WorkloadModel {
  workloadId: string;
  namespace: string;
  name: string;
  type: string;
  status: WorkloadStatus;
  priority: number;
  replicas: number;
  generation: number;
  spec: WorkloadSpec;
  instances: WorkloadInstance[];
  hops: number;
  stopRequested: boolean;
  deleted: boolean;
  /** ISO-8601 instants, kept as read so rows are rewritten exactly. */
  submittedAt: string;
  updatedAt: string;
  lastRevision: number;
}

/** An allocation as the projection holds it in memory (mirrors an allocation_state row). */
export interface AllocationModel {
  allocationId: string;
  workloadId: string;
  namespace: string;
  instance: number;
  attempt: number;
  generation: number;
  nodeId: string;
  domainId: string;
  status: AllocationStatus;
  resources: ResourceAmounts;
  exitCode: number | null;
  signal: string | null;
  reason: string | null;
  pid: number | null;
  placedAt: string;
  startedAt: string | null;
  endedAt: string | null;
  updatedAt: string;
}

/** Instance statuses in which an allocation exists and has not ended. */
export const ACTIVE_INSTANCE_STATUSES: readonly InstanceStatus[] = ['placed', 'running', 'stopping'];

/** True when an allocation has ended. */
export function isTerminal(status: AllocationStatus): boolean {
  return TERMINAL_ALLOCATION_STATUSES.includes(status);
}

/** The later of two ISO-8601 instants (columns that take the latest time never go back). */
export function later(a: string, b: string): string {
  return Date.parse(b) > Date.parse(a) ? b : a;
}

/** An instance waiting for the scheduler (its next attempt). */
export function pendingInstance(instance: number, attempt = 0, retries = 0): WorkloadInstance {
  return { instance, attempt, status: 'pending', allocationId: null, nodeId: null, retries, replace: false };
}

const LIVE_PRECEDENCE: ReadonlyArray<[InstanceStatus, WorkloadStatus]> = [
  ['running', 'running'],
  ['stopping', 'stopping'],
  ['placed', 'starting'],
  ['pending', 'pending'],
  ['unschedulable', 'unschedulable'],
  ['failed', 'failed'],
  ['lost', 'lost'],
  ['stopped', 'stopped'],
];

/** Derives a workload's status from its instances, as documented on WORKLOAD_STATUSES. */
export function deriveWorkloadStatus(workload: WorkloadModel): WorkloadStatus {
  if (workload.deleted) return 'deleted';
  const present = new Set(workload.instances.map((i) => i.status));
  return LIVE_PRECEDENCE.find(([instance]) => present.has(instance))?.[1] ?? 'completed';
}

/**
 * Keeps instances 0..replicas-1 (adding pending ones after a scale-up) and those above that still have a live
 * allocation (they leave once it ends), ordered by index.
 */
export function normalizeInstances(workload: WorkloadModel): void {
  const byIndex = new Map(workload.instances.map((i) => [i.instance, i]));
  for (let index = 0; index < workload.replicas; index++) {
    if (!byIndex.has(index)) byIndex.set(index, pendingInstance(index));
  }
  workload.instances = [...byIndex.values()]
    .filter((i) => i.instance < workload.replicas || ACTIVE_INSTANCE_STATUSES.includes(i.status))
    .sort((a, b) => a.instance - b.instance);
}
