import type { EventDataOf, RecordedEvent } from '@hcn/contracts';
import type { EntityManager } from 'typeorm';
import type { ChangeSet, Projection } from '../projection';

const STEP_TYPES = {
  WorkloadDelegated: 'delegated',
  DelegationRejected: 'rejected',
  AllocationPlaced: 'placed',
  WorkloadUnschedulable: 'unschedulable',
} as const;

type StepType = keyof typeof STEP_TYPES;
type Candidates = EventDataOf<'WorkloadDelegated'>['candidates'];

/** A delegation_hops row of one recorded step. */
function stepRow(event: RecordedEvent, namespace: string) {
  const type = event.type as StepType;
  const d = event.data as Record<string, unknown> & { workloadId: string; instance: number; attempt: number };
  const candidates = (d.candidates as Candidates | undefined) ?? [];
  const row = {
    workload_id: d.workloadId,
    revision: event.revision,
    namespace,
    instance: d.instance,
    attempt: d.attempt,
    type: STEP_TYPES[type],
    hop: null as number | null,
    scope: null as string | null,
    target: null as string | null,
    target_kind: null as string | null,
    reason: null as string | null,
    detail: (d.detail as string | undefined) ?? null,
    candidates,
    considered: candidates.length,
    filtered: candidates.filter((c) => !c.accepted).length,
    recorded_at: event.recordedAt,
  };
  if (type === 'WorkloadDelegated') {
    const x = d as unknown as EventDataOf<'WorkloadDelegated'>;
    Object.assign(row, { hop: x.hop, scope: x.fromScope, target: x.to, target_kind: x.toKind });
  } else if (type === 'DelegationRejected') {
    const x = d as unknown as EventDataOf<'DelegationRejected'>;
    Object.assign(row, { scope: x.scope, reason: x.reason });
  } else if (type === 'AllocationPlaced') {
    const x = d as unknown as EventDataOf<'AllocationPlaced'>;
    Object.assign(row, { scope: x.domainId, target: x.nodeId, target_kind: 'node' });
  } else {
    const x = d as unknown as EventDataOf<'WorkloadUnschedulable'>;
    Object.assign(row, { reason: Object.keys(x.reasons).sort().join(',') || null });
  }
  return row;
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
  async apply(tx: EntityManager, events: readonly RecordedEvent[], changes: ChangeSet): Promise<void> {
    const submitted = events
      .filter((e) => e.type === 'WorkloadSubmitted')
      .map((e) => e.data as EventDataOf<'WorkloadSubmitted'>)
      .map((d) => ({ workload_id: d.workloadId, namespace: d.spec.namespace }));
    if (submitted.length > 0) {
      await tx.query(
        `INSERT INTO delegation_namespaces (workload_id, namespace)
         SELECT workload_id, namespace FROM jsonb_to_recordset($1::jsonb) AS r(workload_id uuid, namespace text)
         ON CONFLICT (workload_id) DO NOTHING`,
        [JSON.stringify(submitted)],
      );
    }
    const steps = events.filter((e) => e.type in STEP_TYPES);
    if (steps.length === 0) return;
    const ids = [...new Set(steps.map((e) => (e.data as { workloadId: string }).workloadId))];
    const known: Array<{ workload_id: string; namespace: string }> = await tx.query(
      'SELECT workload_id, namespace FROM delegation_namespaces WHERE workload_id = ANY($1::uuid[])',
      [ids],
    );
    const namespaceOf = new Map(known.map((r) => [r.workload_id, r.namespace]));
    const rows = steps.flatMap((e) => {
      const ns = namespaceOf.get((e.data as { workloadId: string }).workloadId);
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
