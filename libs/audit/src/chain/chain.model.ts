import type { Actor, CompactDecision } from '@hcn/contracts';

/** Where an event sits in the log and who caused it: what every chain entry carries. */
export interface EventRef {
  readonly eventId: string;
  readonly type: string;
  readonly revision: number;
  /** Global position as `commit/prepare`. */
  readonly position: string;
  /** When the fact happened (metadata.occurredAt). */
  readonly at: string;
  readonly recordedAt: string;
  readonly actor: Actor;
  readonly correlationId: string;
  readonly causationId: string;
}

/** What the scheduler concluded about one candidate in one scope (as recorded). */
export interface ChainCandidate {
  readonly id: string;
  readonly kind: 'domain' | 'node';
  readonly accepted: boolean;
  readonly reason?: string;
  readonly detail?: string;
  readonly score?: number;
}

/**
 * How a scope was judged, as recorded: its members, the sample limit, how many candidates were judged, the count per
 * rejection reason, and how many best scored candidates `candidates` keeps (with the chosen one and a few examples
 * per reason); every verdict is derived again by replaying the decision.
 */
export interface ScopeJudging {
  readonly members?: number;
  readonly sampleLimit?: number;
  readonly judged?: number;
  readonly rejectedCounts?: Readonly<Record<string, number>>;
  readonly topK?: number;
}

/** One hop of a decision: `fromScope` handed the instance to `to`. */
export interface ChainHop extends EventRef {
  /** Index of this hop among all hops of the workload (what `explain --hop N` names). */
  readonly seq: number;
  /** Index of this hop within its decision, root first. */
  readonly hop: number;
  readonly fromScope: string | null;
  readonly to: string;
  readonly toKind: 'domain' | 'node';
  readonly policy: string;
  readonly candidates: readonly ChainCandidate[];
  /** How the scope was judged (absent in older records, whose candidates are every member's verdict). */
  readonly judging?: ScopeJudging;
}

/** A scope that failed during a decision; its parent fell back to a peer. */
export interface ChainRejection extends EventRef {
  readonly scope: string;
  readonly reason: string;
  readonly detail: string;
  readonly candidates: readonly ChainCandidate[];
  /** How the scope was judged (absent in older records, whose candidates are every member's verdict). */
  readonly judging?: ScopeJudging;
}

/** Why a decision was taken. */
export type DecisionTrigger =
  | 'submission'
  | 'retry'
  | 'reschedule-after-node-loss'
  | 'restart-policy'
  | 'replacement'
  | 'scale-up'
  /** Federation: the site the instance was handed to refused it (or did not answer in time). */
  | 'fallback-after-site-refusal';

/** The devices a placement chose, as recorded (scores of the device scorers included). */
export interface ChosenDevicesRecord {
  readonly vendor: string;
  readonly indexes: readonly number[];
  readonly sliceMemoryBytes?: number;
  readonly scores?: Readonly<Record<string, number>>;
}

/** How a decision ended. */
export type DecisionOutcome =
  | {
      readonly kind: 'placed';
      readonly allocationId: string;
      readonly nodeId: string;
      readonly domainId: string;
      /** The devices chosen on the node, when the request asked for devices. */
      readonly devices?: ChosenDevicesRecord;
      /**
       * Federation: the instance was handed over to another site (AllocationDelegated): `nodeId` is its place
       * `site:<id>`, `allocationId` the delegation id, `domainId` the scope that chose the site.
       */
      readonly site?: { readonly siteId: string; readonly relation: 'child' | 'peer' };
      readonly event: EventRef;
    }
  | {
      readonly kind: 'unschedulable';
      readonly reasons: Readonly<Record<string, number>>;
      readonly detail: string;
      readonly event: EventRef;
    };

/** One scheduling decision for one instance attempt: its hops, rejections (fallbacks) and outcome. */
export interface ChainDecision {
  /** Index of the decision in the workload's stream. */
  readonly index: number;
  readonly instance: number;
  readonly attempt: number;
  readonly trigger: DecisionTrigger;
  readonly hops: readonly ChainHop[];
  readonly rejections: readonly ChainRejection[];
  readonly outcome: DecisionOutcome;
  /**
   * The decision as recorded inside its outcome event (hops, rejections, basis), in newer logs; its hops and
   * rejections above are this record in the long form, all at the outcome event. Older logs: absent.
   */
  readonly record?: CompactDecision;
}

/** Kinds of allocation lifecycle entries. */
export type AllocationEntryKind =
  | 'started'
  | 'ready'
  | 'not-ready'
  | 'completed'
  | 'failed'
  | 'lost'
  | 'stop-requested'
  | 'stopped'
  /** Federation: the site a delegated allocation went to took it (its workload id there in `detail`). */
  | 'accepted-by-site'
  /** Federation: the site refused it, or did not answer in time (reason and code in `detail`). */
  | 'refused-by-site';

/** Something that happened to an allocation after its placement. */
export interface ChainAllocationEntry extends EventRef {
  readonly kind: AllocationEntryKind;
  readonly allocationId: string;
  readonly nodeId: string;
  readonly detail: string;
}

/** Kinds of user requests on a workload. */
export type RequestEntryKind = 'submitted' | 'stop-requested' | 'restart-requested' | 'updated' | 'deleted';

/** A request on the workload as a whole (submission, stop, restart, update, delete). */
export interface ChainRequestEntry extends EventRef {
  readonly kind: RequestEntryKind;
  readonly detail: string;
}

/** One line of the timeline, in stream order. */
export type TimelineEntry =
  | { readonly entry: 'request'; readonly request: ChainRequestEntry }
  | { readonly entry: 'decision'; readonly decision: ChainDecision }
  | { readonly entry: 'allocation'; readonly allocation: ChainAllocationEntry };

/** The whole delegation history of a workload, rebuilt from its stream. */
export interface WorkloadChain {
  readonly workloadId: string;
  readonly namespace: string;
  readonly name: string;
  /** Events read from the stream. */
  readonly events: number;
  readonly decisions: readonly ChainDecision[];
  readonly timeline: readonly TimelineEntry[];
}
