import { z } from 'zod';
import { defineEvent } from '../registry';
import { domainIdSchema, nodeIdSchema } from './node.events';
import { resourcesSchema, schedulingPolicySchema } from './resources.schemas';
import { workloadSpecSchema } from './workload.spec';
import { measuredUsageSchema, publishedPortSchema } from './container.spec';
import { placedDevicesSchema } from '../devices/device-request.schema';
import { compactDecisionSchema, renameChosen } from './decision.stored';
import { withStoredForm } from '../util/without-defaults';
import { delegatedFromSchema } from './delegation.schemas';
import { siteIdSchema } from './site.events';

const id = z.string().uuid();
const at = z.string().datetime({ offset: true });
const instance = z.number().int().min(0).max(999);
const attempt = z.number().int().min(0);

/** Prefix of the place of an allocation delegated to another site: `site:<siteId>` stands where a node id would. */
export const SITE_PLACE_PREFIX = 'site:';

/** Where an allocation runs: a node of this site (its id), or another site (`site:<siteId>`, federation). */
export const allocationPlaceSchema = z.union([
  nodeIdSchema,
  z.string().regex(/^site:[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/, 'site:<site id>'),
]);

/** The place of an allocation delegated to site `siteId`. */
export function sitePlace(siteId: string): string {
  return `${SITE_PLACE_PREFIX}${siteId}`;
}

/** The site an allocation place names (`site:<id>`), or undefined for a node of this site. */
export function siteOfPlace(place: string): string | undefined {
  return place.startsWith(SITE_PLACE_PREFIX) ? place.slice(SITE_PLACE_PREFIX.length) : undefined;
}

/** How the delegating site knows the site it delegated to: a registered child, or a configured peer. */
export const siteRelationSchema = z.enum(['child', 'peer']);

/** How the delegating site knows the site it delegated to. */
export type SiteRelation = z.output<typeof siteRelationSchema>;

/** Why a site did not take a delegation (recorded in DelegationRejected.reason with scope `site:<id>`). */
export const siteRejectionReasonSchema = z.enum([
  'quota',
  'unschedulable',
  'namespace-not-served',
  'refused',
  'timeout',
]);

/** Why a site did not take a delegation. */
export type SiteRejectionReason = z.output<typeof siteRejectionReasonSchema>;

/** What the scheduler concluded about one candidate (a child domain or a node) in one scope. */
export const candidateVerdictSchema = z.object({
  id: z.string().max(64),
  kind: z.enum(['domain', 'node']),
  accepted: z.boolean(),
  reason: z.string().max(64).optional(),
  detail: z.string().max(500).optional(),
  score: z.number().optional(),
});

/**
 * How a scope was judged and what of it is kept: the members it had, the sample limit, how many candidates were
 * judged, the count per rejection reason, and the number of best scored candidates kept. Absent in older events,
 * whose `candidates` hold every member's verdict; newer ones keep only the best `topK`, the chosen one and a few
 * examples per reason (the rest is derived by replaying the decision).
 */
const sampling = {
  members: z.number().int().min(0).optional(),
  sampleLimit: z.number().int().min(1).optional(),
  judged: z.number().int().min(0).optional(),
  rejectedCounts: z.record(z.string().max(64), z.number().int().min(0)).optional(),
  topK: z.number().int().min(0).optional(),
};

/**
 * Federation: where the status an event records came from in the log of the site running the delegation (its
 * workload stream's revision and that event's hash-chain link); absent for a node's report.
 */
const siteAnchor = {
  siteRevision: z.number().int().min(0).optional(),
  siteHash: z.string().max(128).optional(),
};

/** A workload was admitted. */
export const WorkloadSubmitted = defineEvent(
  'WorkloadSubmitted',
  1,
  z.object({
    workloadId: id,
    spec: workloadSpecSchema,
    /** Absent in newer logs when null (stored without defaults). */
    idempotencyKey: z.string().max(128).nullable().default(null),
    /** Set when a parent site delegated the workload to this site (federation); absent otherwise and in older logs. */
    delegatedFrom: delegatedFromSchema.optional(),
  }),
);
/**
 * One hop of a delegation chain: a scope handed an instance down to a child domain or a node. Older logs only: a
 * decision is now recorded inside its AllocationPlaced / WorkloadUnschedulable (`decision`).
 */
export const WorkloadDelegated = defineEvent(
  'WorkloadDelegated',
  1,
  z.object({
    workloadId: id,
    instance,
    attempt,
    hop: z.number().int().min(0),
    fromScope: domainIdSchema.nullable(),
    to: z.string().max(64),
    toKind: z.enum(['domain', 'node']),
    policy: schedulingPolicySchema,
    candidates: z.array(candidateVerdictSchema),
    ...sampling,
  }),
);
/**
 * A scope could not place an instance; the parent backs off to a sibling. Two kinds: a scope of this hub's tree
 * (older logs only: a decision is now recorded inside its outcome event, see `decision`), and a site that did not
 * take a delegation (federation: `scope` `site:<id>`, `allocationId` the delegation's, `siteId`, `reason` one of
 * siteRejectionReasonSchema, `code` the site's dotted code when it answered, `reasons` its scheduler's counts,
 * `candidates` empty): that allocation ends (`rejected`) and the instance is decided again without that site.
 */
export const DelegationRejected = defineEvent(
  'DelegationRejected',
  1,
  z.object({
    workloadId: id,
    instance,
    attempt,
    scope: z.string().max(64),
    reason: z.string().max(64),
    detail: z.string().max(2000),
    candidates: z.array(candidateVerdictSchema),
    ...sampling,
    /** Federation: the delegation (allocation) the site did not take. */
    allocationId: id.optional(),
    /** Federation: the site that did not take it. */
    siteId: siteIdSchema.optional(),
    /** Federation: the site's dotted code (absent on a timeout). */
    code: z.string().max(100).optional(),
    /** Federation: the site scheduler's rejection counts, when it found no fit. */
    reasons: z.record(z.string().max(64), z.number().int()).optional(),
    /** Federation: when the answer (or the timeout) came. */
    rejectedAt: at.optional(),
  }),
);
/**
 * An instance is delegated to another site (federation): the allocation `allocationId` (also the delegation id the
 * site is asked under) runs at `site:<siteId>`, a registered child or a configured peer, which admits it under its
 * own rules and answers. The decision (hops down to the site's synthetic candidate `site:<siteId>`, the local
 * scopes' rejections, basis with `sites`) is recorded inside, as in AllocationPlaced.
 */
export const AllocationDelegated = defineEvent(
  'AllocationDelegated',
  1,
  z.object({
    workloadId: id,
    allocationId: id,
    instance,
    attempt,
    generation: z.number().int().min(1),
    siteId: siteIdSchema,
    relation: siteRelationSchema,
    resources: resourcesSchema,
    decision: compactDecisionSchema,
  }),
);
/** The site a delegation went to took it: its own workload id (its log holds the rest: `delegatedFrom`). */
export const DelegationAccepted = defineEvent(
  'DelegationAccepted',
  1,
  z.object({
    workloadId: id,
    allocationId: id,
    siteId: siteIdSchema,
    siteWorkloadId: id,
    acceptedAt: at,
  }),
);
/**
 * An instance has capacity reserved on a node and will run there. Stored without defaults, its decision compact
 * (`compactDecisionSchema`) with the chosen node, which `nodeId` names, as '' (filled back on read).
 */
export const AllocationPlaced = defineEvent(
  'AllocationPlaced',
  1,
  withStoredForm(
    z
      .object({
        workloadId: id,
        allocationId: id,
        instance,
        attempt,
        generation: z.number().int().min(1),
        nodeId: nodeIdSchema,
        domainId: domainIdSchema,
        resources: resourcesSchema,
        /** The devices chosen, and how each device scorer rated them, when the workload asked for devices. */
        devices: placedDevicesSchema.optional(),
        /** The decision (hops, rejections, basis); absent in older logs, whose hops are WorkloadDelegated events. */
        decision: compactDecisionSchema.optional(),
      })
      .overwrite((d) => (d.decision ? { ...d, decision: renameChosen(d.decision, '', d.nodeId) } : d)),
    (d, strip) => strip(d.decision ? { ...d, decision: renameChosen(d.decision, d.nodeId, '') } : d),
  ),
);
/** No node can take an instance now; it is retried when capacity appears. */
export const WorkloadUnschedulable = defineEvent(
  'WorkloadUnschedulable',
  1,
  z.object({
    workloadId: id,
    instance,
    attempt,
    reasons: z.record(z.string(), z.number().int()),
    detail: z.string().max(2000),
    /** The decision (hops, rejections, basis); absent in older logs, whose scopes are separate events. */
    decision: compactDecisionSchema.optional(),
  }),
);
/** The agent started the allocation's process. */
export const AllocationStarted = defineEvent(
  'AllocationStarted',
  1,
  z.object({
    workloadId: id,
    allocationId: id,
    nodeId: allocationPlaceSchema,
    pid: z.number().int(),
    startedAt: at,
    /** Ports the engine published on the node (container workloads that asked for ports). */
    ports: z.array(publishedPortSchema).max(64).optional(),
    ...siteAnchor,
  }),
);
/** A service's allocation passed its readiness probe (or, without one, started): it counts as an endpoint. */
export const AllocationReady = defineEvent(
  'AllocationReady',
  1,
  z.object({ workloadId: id, allocationId: id, nodeId: allocationPlaceSchema, at, ...siteAnchor }),
);
/** A service's allocation failed its readiness probe: it no longer counts as an endpoint (it keeps running). */
export const AllocationNotReady = defineEvent(
  'AllocationNotReady',
  1,
  z.object({
    workloadId: id,
    allocationId: id,
    nodeId: allocationPlaceSchema,
    reason: z.string().max(2000),
    at,
    ...siteAnchor,
  }),
);
/** The allocation's process exited with code 0. */
export const AllocationCompleted = defineEvent(
  'AllocationCompleted',
  1,
  z.object({
    workloadId: id,
    allocationId: id,
    nodeId: allocationPlaceSchema,
    exitCode: z.number().int(),
    endedAt: at,
    /** What the allocation used over its life, measured on its node (absent: not measured). */
    usage: measuredUsageSchema.optional(),
    ...siteAnchor,
  }),
);
/** The allocation failed: spawn error, non-zero exit or an unexpected signal. */
export const AllocationFailed = defineEvent(
  'AllocationFailed',
  1,
  z.object({
    workloadId: id,
    allocationId: id,
    nodeId: allocationPlaceSchema,
    reason: z.string().max(2000),
    exitCode: z.number().int().nullable(),
    signal: z.string().max(16).nullable(),
    endedAt: at,
    /** What the allocation used over its life, measured on its node (absent: not measured). */
    usage: measuredUsageSchema.optional(),
    ...siteAnchor,
  }),
);
/** The allocation's node went offline; the instance is rescheduled by its restart policy. */
export const AllocationLost = defineEvent(
  'AllocationLost',
  1,
  z.object({
    workloadId: id,
    allocationId: id,
    nodeId: allocationPlaceSchema,
    reason: z.string().max(500),
    lostAt: at,
    ...siteAnchor,
  }),
);
/** A user asked that the workload stop. */
export const WorkloadStopRequested = defineEvent(
  'WorkloadStopRequested',
  1,
  z.object({ workloadId: id, reason: z.string().max(500) }),
);
/** The hub asked a node to stop one allocation (stop, restart, replacement after an update, deletion). */
export const AllocationStopRequested = defineEvent(
  'AllocationStopRequested',
  1,
  z.object({
    workloadId: id,
    allocationId: id,
    nodeId: allocationPlaceSchema,
    gracePeriodSeconds: z.number().min(0),
    reason: z.string().max(500),
  }),
);
/** The allocation ended because it was asked to; `endedBy` says whether SIGTERM sufficed. */
export const AllocationStopped = defineEvent(
  'AllocationStopped',
  1,
  z.object({
    workloadId: id,
    allocationId: id,
    nodeId: allocationPlaceSchema,
    endedBy: z.enum(['SIGTERM', 'SIGKILL', 'not-running']),
    exitCode: z.number().int().nullable(),
    signal: z.string().max(16).nullable(),
    endedAt: at,
    /** What the allocation used over its life, measured on its node (absent: not measured). */
    usage: measuredUsageSchema.optional(),
    ...siteAnchor,
  }),
);
/**
 * Federation: the site a taken delegation runs at went offline (its TTL passed): the allocation is unknown, neither
 * running nor lost, and holds its place until the site is heard from again or an operator gives it up.
 */
export const AllocationUnknown = defineEvent(
  'AllocationUnknown',
  1,
  z.object({
    workloadId: id,
    allocationId: id,
    nodeId: allocationPlaceSchema,
    siteId: siteIdSchema,
    reason: z.string().max(500),
    unknownAt: at,
  }),
);
/** Federation: the site of an unknown allocation reported again; the allocation is what it was before. */
export const AllocationReachable = defineEvent(
  'AllocationReachable',
  1,
  z.object({
    workloadId: id,
    allocationId: id,
    nodeId: allocationPlaceSchema,
    siteId: siteIdSchema,
    at,
    ...siteAnchor,
  }),
);
/** A user asked for fresh allocations of every instance. */
export const WorkloadRestartRequested = defineEvent(
  'WorkloadRestartRequested',
  1,
  z.object({ workloadId: id, reason: z.string().max(500) }),
);
/** The spec changed; allocations of older generations are replaced. */
export const WorkloadUpdated = defineEvent(
  'WorkloadUpdated',
  1,
  z.object({ workloadId: id, generation: z.number().int().min(2), spec: workloadSpecSchema }),
);
/** The workload was deleted; its allocations are stopped and its quota released. */
export const WorkloadDeleted = defineEvent(
  'WorkloadDeleted',
  1,
  z.object({ workloadId: id, reason: z.string().max(500) }),
);

/** Every workload event definition. */
export const WORKLOAD_EVENTS = [
  WorkloadSubmitted,
  WorkloadDelegated,
  DelegationRejected,
  AllocationDelegated,
  DelegationAccepted,
  AllocationPlaced,
  WorkloadUnschedulable,
  AllocationStarted,
  AllocationReady,
  AllocationNotReady,
  AllocationCompleted,
  AllocationFailed,
  AllocationLost,
  WorkloadStopRequested,
  AllocationStopRequested,
  AllocationStopped,
  WorkloadRestartRequested,
  WorkloadUpdated,
  WorkloadDeleted,
  AllocationUnknown,
  AllocationReachable,
] as const;

/** Stream of a workload: submission, every hop, every allocation's life. */
export const workloadStream = (workloadId: string): string => `workload-${workloadId}`;
