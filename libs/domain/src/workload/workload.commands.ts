import type {
  CompactDecision,
  DelegatedFrom,
  EventDataOf,
  MeasuredUsage,
  WorkloadSpec,
  PlacedDevices,
  PublishedPort,
  SiteRejectionReason,
  SiteRelation,
} from '@hcn/contracts';
import type { SiteStatusReport } from './workload.site-status';

/**
 * The scheduler's verdict for one instance attempt, as the saga hands it to the decider: the decision (hops,
 * rejections, basis; compact) is recorded inside the one outcome event.
 */
export interface DecisionRecord {
  readonly instance: number;
  readonly attempt: number;
  readonly decision: CompactDecision;
  readonly outcome:
    | {
        readonly kind: 'placed';
        readonly allocationId: string;
        readonly nodeId: string;
        readonly domainId: string;
        /** The devices chosen, when the workload asked for devices. */
        readonly devices?: PlacedDevices;
      }
    | {
        /** Federation: the instance goes to another site (`allocationId` is the delegation id it is asked under). */
        readonly kind: 'delegated';
        readonly allocationId: string;
        readonly siteId: string;
        readonly relation: SiteRelation;
      }
    | {
        readonly kind: 'unschedulable';
        readonly reasons: Readonly<Record<string, number>>;
        readonly detail: string;
      };
}

/** How an allocation ended, as its agent reported it. */
export interface AllocationEnd {
  readonly allocationId: string;
  /** The reporting node; it must be the allocation's. */
  readonly nodeId: string;
  readonly outcome: 'completed' | 'failed' | 'stopped';
  readonly exitCode: number | null;
  readonly signal: string | null;
  readonly reason: string;
  readonly endedBy: 'SIGTERM' | 'SIGKILL' | 'not-running';
  readonly at: string;
  /** What the allocation used, when its node measured it. */
  readonly usage?: MeasuredUsage;
}

/** Why a site did not take a delegation (federation), as the delegating site records it. */
export interface DelegationRefusal {
  readonly allocationId: string;
  /** The site the delegation went to; it must be the allocation's. */
  readonly siteId: string;
  readonly reason: SiteRejectionReason;
  /** The site's dotted code (absent: no answer). */
  readonly code?: string;
  readonly detail: string;
  /** The site scheduler's rejection counts, when it found no fit. */
  readonly reasons?: Readonly<Record<string, number>>;
  readonly at: string;
}

/** Commands the workload decider accepts (time passed in). */
export type WorkloadCommand =
  | {
      type: 'Submit';
      workloadId: string;
      spec: WorkloadSpec;
      idempotencyKey: string | null;
      /** The parent site's delegation this submission runs (federation), recorded on WorkloadSubmitted. */
      delegatedFrom?: DelegatedFrom;
    }
  | { type: 'RecordDecision'; decision: DecisionRecord }
  | {
      type: 'RecordStarted';
      allocationId: string;
      nodeId: string;
      pid: number;
      at: string;
      ports?: readonly PublishedPort[];
    }
  /** A service's readiness changed, as its agent reported it (`nodeId` must be the allocation's). */
  | {
      type: 'RecordReadiness';
      allocationId: string;
      nodeId: string;
      ready: boolean;
      reason: string;
      at: string;
    }
  | ({ type: 'RecordEnded' } & AllocationEnd)
  /** `nodeId`: the node that reported the loss (it must be the allocation's); absent when the hub decided it. */
  | { type: 'MarkLost'; allocationId: string; reason: string; at: string; nodeId?: string }
  /** Federation: the site a delegation went to took it (`siteId` must be the allocation's site). */
  | {
      type: 'RecordDelegationAccepted';
      allocationId: string;
      siteId: string;
      siteWorkloadId: string;
      at: string;
    }
  /** Federation: the site did not take it, or did not answer in time; the instance is decided again without it. */
  | ({ type: 'RecordDelegationRejected' } & DelegationRefusal)
  /** Federation: what the site running a delegation reported of it (status flows back). */
  | ({ type: 'RecordSiteStatus' } & SiteStatusReport)
  /** Federation: the site of a taken delegation went offline; the allocation is unknown until heard from. */
  | { type: 'MarkUnknown'; allocationId: string; siteId: string; reason: string; at: string }
  /** Federation: an operator gives an `unknown` allocation up (lost; its site is told to cancel it when reachable). */
  | { type: 'GiveUp'; allocationId: string; reason: string; at: string }
  | { type: 'RequestStop'; reason: string }
  | { type: 'RequestRestart'; reason: string }
  | { type: 'Update'; spec: WorkloadSpec }
  | { type: 'Delete'; reason: string };

/** Events of a workload stream. */
export type WorkloadEvent = {
  [T in WorkloadEventType]: { type: T; data: EventDataOf<T> };
}[WorkloadEventType];

/** Types of the events in a workload stream. */
export type WorkloadEventType =
  | 'WorkloadSubmitted'
  | 'WorkloadDelegated'
  | 'DelegationRejected'
  | 'AllocationDelegated'
  | 'DelegationAccepted'
  | 'AllocationPlaced'
  | 'WorkloadUnschedulable'
  | 'AllocationStarted'
  | 'AllocationReady'
  | 'AllocationNotReady'
  | 'AllocationCompleted'
  | 'AllocationFailed'
  | 'AllocationLost'
  | 'WorkloadStopRequested'
  | 'AllocationStopRequested'
  | 'AllocationStopped'
  | 'WorkloadRestartRequested'
  | 'WorkloadUpdated'
  | 'WorkloadDeleted'
  | 'AllocationUnknown'
  | 'AllocationReachable';
