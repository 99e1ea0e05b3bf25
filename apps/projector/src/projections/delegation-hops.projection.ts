import { EventDataOf, RecordedEventOf, RecordedHcnEvent, isEventOfTypes } from '@hcn/contracts';
import type { EntityManager } from 'typeorm';
import type { ChangeSet, Projection } from '../projection';

const STEP_TYPES = {
  WorkloadDelegated: 'delegated',
  DelegationRejected: 'rejected',
  AllocationPlaced: 'placed',
  WorkloadUnschedulable: 'unschedulable',
} as const;

type StepEvent = RecordedEventOf<keyof typeof STEP_TYPES>;
type Candidates = EventDataOf<'WorkloadDelegated'>['candidates'];

/** What a step says beyond its workload, instance and attempt: where it went, why, and the candidates judged. */
interface StepDetails {
  readonly hop: number | null;
  readonly scope: string | null;
  readonly target: string | null;
  readonly target_kind: string | null;
  readonly reason: string | null;
  readonly detail: string | null;
  readonly candidates: Candidates;
  /** Candidates judged and filtered out (older events: counted from their full candidate list). */
  readonly considered: number;
  readonly filtered: number;
}

const NO_DETAILS: StepDetails = {
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

/** How many candidates a scope judged and filtered out: recorded counts, or the full list of an older event. */
function judgedCounts(d: {
  candidates: Candidates;
  judged?: number;
  rejectedCounts?: Record<string, number>;
}): { considered: number; filtered: number } {
  if (d.judged === undefined || !d.rejectedCounts)
    return { considered: d.candidates.length, filtered: d.candidates.filter((c) => !c.accepted).length };
  return { considered: d.judged, filtered: Object.values(d.rejectedCounts).reduce((a, b) => a + b, 0) };
}

function stepDetails(event: StepEvent): StepDetails {
  switch (event.type) {
    case 'WorkloadDelegated': {
      const { hop, fromScope, to, toKind, candidates } = event.data;
      const counts = judgedCounts(event.data);
      return { ...NO_DETAILS, hop, scope: fromScope, target: to, target_kind: toKind, candidates, ...counts };
    }
    case 'DelegationRejected': {
      const { scope, reason, detail, candidates } = event.data;
      return { ...NO_DETAILS, scope, reason, detail, candidates, ...judgedCounts(event.data) };
    }
    case 'AllocationPlaced':
      return { ...NO_DETAILS, scope: event.data.domainId, target: event.data.nodeId, target_kind: 'node' };
    case 'WorkloadUnschedulable': {
      const reason = Object.keys(event.data.reasons).sort().join(',') || null;
      return { ...NO_DETAILS, reason, detail: event.data.detail };
    }
  }
}

/** A delegation_hops row of one recorded step. */
function stepRow(event: StepEvent, namespace: string) {
  const details = stepDetails(event);
  return {
    workload_id: event.data.workloadId,
    revision: event.revision,
    namespace,
    instance: event.data.instance,
    attempt: event.data.attempt,
    type: STEP_TYPES[event.type],
    ...details,
    recorded_at: event.recordedAt,
  };
}

/**
 * Projection of workload-* streams into delegation_hops: every hop, rejection, placement and unschedulable verdict
 * as a row (keyed by workload and stream revision, so a replayed event changes nothing), scoped by the namespace
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
      return ns === undefined ? [] : [stepRow(e, ns)];
    });
    await tx.query(
      `INSERT INTO delegation_hops (workload_id, revision, namespace, instance, attempt, type, hop, scope, target,
         target_kind, reason, detail, candidates, considered, filtered, recorded_at)
       SELECT * FROM jsonb_to_recordset($1::jsonb) AS r(workload_id uuid, revision int, namespace text, instance int,
         attempt int, type text, hop int, scope text, target text, target_kind text, reason text, detail text,
         candidates jsonb, considered int, filtered int, recorded_at timestamptz)
       ON CONFLICT (workload_id, revision) DO NOTHING`,
      [JSON.stringify(rows)],
    );
    rows.forEach((r) => changes.workloads.add(r.workload_id));
  },
};
