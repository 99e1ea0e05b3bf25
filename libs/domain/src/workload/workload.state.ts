import type {
  DelegatedFrom,
  MeasuredUsage,
  PublishedPort,
  ResourceAmounts,
  SiteRelation,
  WorkloadSpec,
} from '@hcn/contracts';

/** Where one instance (replica) of a workload stands. */
export type InstanceStatus =
  | 'pending'
  | 'unschedulable'
  | 'placed'
  | 'running'
  | 'stopping'
  | 'completed'
  | 'failed'
  | 'lost'
  | 'stopped'
  /** Federation: its allocation's site went offline (see AllocationStatus `unknown`). */
  | 'unknown';

/** Where one allocation (an instance's attempt on a node) stands. */
export type AllocationStatus =
  | 'placed'
  | 'running'
  | 'stopping'
  | 'completed'
  | 'failed'
  | 'lost'
  | 'stopped'
  /** Federation: the site it was delegated to did not take it (or did not answer in time); it never ran. */
  | 'rejected'
  /** Federation: the site that took it went offline; neither running nor lost until heard from or given up. */
  | 'unknown';

/** One allocation of a workload. */
export interface AllocationView {
  readonly allocationId: string;
  readonly instance: number;
  readonly attempt: number;
  readonly generation: number;
  readonly nodeId: string;
  readonly domainId: string;
  readonly resources: ResourceAmounts;
  readonly status: AllocationStatus;
  readonly pid?: number;
  readonly exitCode?: number | null;
  readonly reason?: string;
  /** Ports the engine published for a container. */
  readonly ports?: readonly PublishedPort[];
  /** What the allocation used over its life (ended allocations whose node measured it). */
  readonly usage?: MeasuredUsage;
  /** When set, a new attempt follows once this allocation has ended (restart, update). */
  readonly replace?: boolean;
  /**
   * Services only: true while the allocation counts as an endpoint (its readiness probe passes, or it started and
   * its spec has no readiness probe); false before, after it ended and once it was asked to stop.
   */
  readonly ready?: boolean;
  /** Services only: its generation's spec has a readiness probe (so starting does not make it ready). */
  readonly probed?: boolean;
  /**
   * Federation: the site it was delegated to (then `nodeId` is `site:<siteId>` and `domainId` the site id); the
   * allocation id is the delegation id. Absent: it runs on a node of this site.
   */
  readonly siteId?: string;
  /** Federation: whether that site is a registered child or a configured peer. */
  readonly relation?: SiteRelation;
  /** Federation: the site's own workload id, once it took the delegation. */
  readonly siteWorkloadId?: string;
  /** Federation: the last revision of the site's workload stream whose status was recorded (a repeat is ignored). */
  readonly siteRevision?: number;
  /** Federation, while `unknown`: what it was before its site went offline. */
  readonly unknownFrom?: 'placed' | 'running' | 'stopping';
}

/** One instance (replica) of a workload. */
export interface InstanceView {
  readonly instance: number;
  readonly attempt: number;
  readonly status: InstanceStatus;
  readonly allocationId?: string;
  /** Restarts used by the restart policy so far. */
  readonly retries: number;
  /** Earliest time the next attempt may be placed (ISO-8601), after a restart backoff. */
  readonly notBefore?: string;
  /** Reason codes of the last unschedulable verdict. */
  readonly unschedulableReasons?: Readonly<Record<string, number>>;
  /**
   * Federation: sites that did not take this instance since it was last placed, taken or found unschedulable; its
   * next decision leaves them out (as excluded candidates `site:<id>`).
   */
  readonly rejectedSites?: readonly string[];
}

/** Everything the workload decider knows, folded from `workload-<id>`. */
export interface WorkloadState {
  readonly exists: boolean;
  readonly deleted: boolean;
  readonly workloadId?: string;
  readonly spec?: WorkloadSpec;
  readonly idempotencyKey?: string | null;
  /** Federation: the site that delegated this workload here (absent: submitted here). */
  readonly delegatedFrom?: DelegatedFrom;
  readonly generation: number;
  /** What the user wants: instances running, or everything stopped. */
  readonly desired: 'running' | 'stopped';
  readonly instances: readonly InstanceView[];
  readonly allocations: Readonly<Record<string, AllocationView>>;
  readonly hops: number;
}

/** Before submission. */
export const initialWorkloadState: WorkloadState = {
  exists: false,
  deleted: false,
  generation: 0,
  desired: 'running',
  instances: [],
  allocations: {},
  hops: 0,
};

/** Allocation statuses that still hold capacity on a node. */
export const ACTIVE_ALLOCATION: ReadonlySet<AllocationStatus> = new Set([
  'placed',
  'running',
  'stopping',
  'unknown',
]);

/** Instance statuses waiting for a placement. */
export const WAITING_INSTANCE: ReadonlySet<InstanceStatus> = new Set(['pending', 'unschedulable']);

/** The workload's overall status, derived from its instances. */
export function workloadStatus(state: WorkloadState): string {
  if (state.deleted) return 'deleted';
  const statuses = new Set(state.instances.map((i) => i.status));
  for (const s of ['running', 'unknown', 'stopping', 'placed', 'pending', 'unschedulable'] as const) {
    if (statuses.has(s)) return s === 'stopping' || s === 'placed' ? (s === 'placed' ? 'starting' : s) : s;
  }
  for (const s of ['failed', 'lost', 'stopped'] as const) if (statuses.has(s)) return s;
  return 'completed';
}

/** Instances waiting for a placement whose restart backoff is over at `nowMs`; none while stopping or deleted. */
export function dueInstances(state: WorkloadState, nowMs: number): InstanceView[] {
  if (state.deleted || state.desired !== 'running' || !state.spec) return [];
  return state.instances.filter(
    (i) => WAITING_INSTANCE.has(i.status) && (!i.notBefore || Date.parse(i.notBefore) <= nowMs),
  );
}
