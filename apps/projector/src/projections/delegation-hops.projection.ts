import {
  CompactDecision,
  ExpandedHop,
  ExpandedRejection,
  RecordedEventOf,
  RecordedHcnEvent,
  expandDecision,
  isEventOfTypes,
  sitePlace,
} from '@hcn/contracts';
import { DELEGATION_HOPS, DelegationHopRecord, insertNewRows } from '@hcn/read-models';
import type { EntityManager } from 'typeorm';
import type { ChangeSet, Projection } from '../projection';

const STEP_TYPES = {
  WorkloadDelegated: 'delegated',
  DelegationRejected: 'rejected',
  AllocationPlaced: 'placed',
  WorkloadUnschedulable: 'unschedulable',
  AllocationDelegated: 'site',
} as const;

type StepEvent = RecordedEventOf<keyof typeof STEP_TYPES>;

/** What a step says beyond its workload, instance and attempt: where it went, why, and the candidates judged. */
type StepDetails = Omit<
  DelegationHopRecord,
  'workload_id' | 'revision' | 'step' | 'namespace' | 'instance' | 'attempt' | 'recorded_at'
>;

const NO_DETAILS = {
  hop: null,
  scope: null,
  target: null,
  target_kind: null,
  reason: null,
  detail: null,
  candidates: [],
  considered: 0,
  filtered: 0,
};

/** A judged scope's verdicts and counts (older events: the full verdict list, no counts). */
interface Judged {
  readonly candidates: ReadonlyArray<{ accepted: boolean }>;
  readonly judged?: number;
  readonly rejectedCounts?: Record<string, number>;
}

/** How many candidates a scope judged and filtered out: recorded counts, or the full list of an older event. */
function judgedCounts(d: Judged): { considered: number; filtered: number } {
  if (d.judged === undefined || !d.rejectedCounts)
    return { considered: d.candidates.length, filtered: d.candidates.filter((c) => !c.accepted).length };
  return { considered: d.judged, filtered: Object.values(d.rejectedCounts).reduce((a, b) => a + b, 0) };
}

function hopDetails(h: Pick<ExpandedHop, 'hop' | 'fromScope' | 'to' | 'toKind'> & Judged): StepDetails {
  const { hop, fromScope, to, toKind } = h;
  const counts = judgedCounts(h);
  const target = { target: to, target_kind: toKind };
  return {
    ...NO_DETAILS,
    type: 'delegated',
    hop,
    scope: fromScope,
    ...target,
    candidates: [...h.candidates],
    ...counts,
  };
}

function rejectionDetails(r: Pick<ExpandedRejection, 'scope' | 'reason' | 'detail'> & Judged): StepDetails {
  const { scope, reason, detail } = r;
  const candidates = [...r.candidates];
  return { ...NO_DETAILS, type: 'rejected', scope, reason, detail, candidates, ...judgedCounts(r) };
}

/** The steps one event records: older events one each; a decision's outcome event its hops, rejections, itself. */
function stepDetails(event: StepEvent): StepDetails[] {
  switch (event.type) {
    case 'WorkloadDelegated':
      return [hopDetails(event.data)];
    case 'DelegationRejected':
      return [rejectionDetails(event.data)];
    case 'AllocationPlaced': {
      const d = event.data;
      const placed = { ...NO_DETAILS, type: 'placed' as const, scope: d.domainId, target: d.nodeId };
      return [...recordedSteps(d.decision), { ...placed, target_kind: 'node' }];
    }
    case 'AllocationDelegated': {
      const d = event.data;
      const steps = recordedSteps(d.decision);
      const site = { ...NO_DETAILS, type: 'site' as const, target: sitePlace(d.siteId), target_kind: 'site' };
      return [...steps, { ...site, scope: lastHopScope(steps), detail: d.relation }];
    }
    case 'WorkloadUnschedulable': {
      const reason = Object.keys(event.data.reasons).sort().join(',') || null;
      const verdict = { ...NO_DETAILS, type: 'unschedulable' as const, reason, detail: event.data.detail };
      return [...recordedSteps(event.data.decision), verdict];
    }
  }
}

/** The scope whose hop chose the last target (the site's parent scope in this site's tree), if any. */
function lastHopScope(steps: readonly StepDetails[]): string | null {
  return steps.filter((s) => s.type === 'delegated').at(-1)?.scope ?? null;
}

/** The hops and rejections a decision recorded inside its outcome event (none in older logs). */
function recordedSteps(decision: CompactDecision | undefined): StepDetails[] {
  if (!decision) return [];
  const { hops, rejections } = expandDecision(decision);
  return [...hops.map(hopDetails), ...rejections.map(rejectionDetails)];
}

/** The delegation_hops rows of one recorded event. */
function stepRows(event: StepEvent, namespace: string): DelegationHopRecord[] {
  const { workloadId, instance, attempt } = event.data;
  return stepDetails(event).map((details, step) => ({
    workload_id: workloadId,
    revision: event.revision,
    step,
    namespace,
    instance,
    attempt,
    ...details,
    recorded_at: event.recordedAt,
  }));
}

/**
 * Projection of workload-* streams into delegation_hops: every hop, rejection, placement and unschedulable verdict
 * as a row (keyed by workload, stream revision and step, so a replayed event changes nothing), scoped by the namespace
 * each workload was submitted to (delegation_namespaces).
 */
export const delegationHopsProjection: Projection = {
  name: 'delegation-hops',
  filter: { kind: 'streamPrefix', prefixes: ['workload-'] },
  tables: ['delegation_hops', 'delegation_namespaces'],
  async apply(tx: EntityManager, events: readonly RecordedHcnEvent[], changes: ChangeSet): Promise<void> {
    const submitted = events.flatMap((e) =>
      e.type === 'WorkloadSubmitted'
        ? [{ workload_id: e.data.workloadId, namespace: e.data.spec.namespace }]
        : [],
    );
    if (submitted.length > 0) {
      await tx.query(
        `INSERT INTO delegation_namespaces (workload_id, namespace)
         SELECT workload_id, namespace FROM jsonb_to_recordset($1::jsonb) AS r(workload_id uuid, namespace text)
         ON CONFLICT (workload_id) DO NOTHING`,
        [JSON.stringify(submitted)],
      );
    }
    const steps = events.filter((e): e is StepEvent => isEventOfTypes(e, STEP_TYPES));
    if (steps.length === 0) return;
    const ids = [...new Set(steps.map((e) => e.data.workloadId))];
    const known: Array<{ workload_id: string; namespace: string }> = await tx.query(
      'SELECT workload_id, namespace FROM delegation_namespaces WHERE workload_id = ANY($1::uuid[])',
      [ids],
    );
    const namespaceOf = new Map(known.map((r) => [r.workload_id, r.namespace]));
    const rows = steps.flatMap((e) => {
      const ns = namespaceOf.get(e.data.workloadId);
      return ns === undefined ? [] : stepRows(e, ns);
    });
    await insertNewRows(tx, DELEGATION_HOPS, rows);
    rows.forEach((r) => changes.workloads.add(r.workload_id));
  },
};
