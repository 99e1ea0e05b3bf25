import { z } from '@hcn/contracts';
import { defineTable } from './table';

/** Kinds of delegation_hops rows. */
export const DELEGATION_STEP_TYPES = ['delegated', 'rejected', 'placed', 'unschedulable', 'site'] as const;

/**
 * A delegation_hops row kind: a hop, a rejected scope (a site's refusal: scope `site:<id>`), a placement, an
 * unschedulable verdict, a hand-over to another site (federation: target `site:<id>`, detail child or peer).
 */
export type DelegationStepType = (typeof DELEGATION_STEP_TYPES)[number];

/**
 * One delegation_hops row (projection of workload-* streams): one recorded scheduling step, keyed by its workload,
 * the stream revision of the event that holds it and its place in that event (`step`; 0 for the one-step events of
 * older logs), with the workload's namespace for token scoping.
 */
export interface DelegationHopRecord {
  workload_id: string;
  revision: number;
  step: number;
  namespace: string;
  instance: number;
  attempt: number;
  type: DelegationStepType;
  hop: number | null;
  scope: string | null;
  target: string | null;
  target_kind: string | null;
  reason: string | null;
  detail: string | null;
  candidates: unknown[];
  considered: number;
  filtered: number;
  recorded_at: string;
}

/** The delegation_hops table (its indexes are in the migrations). */
export const DELEGATION_HOPS = defineTable<DelegationHopRecord>({
  name: 'delegation_hops',
  key: ['workload_id', 'revision', 'step'],
  columns: {
    workload_id: 'uuid',
    revision: 'int',
    step: 'int',
    namespace: 'text',
    instance: 'int',
    attempt: 'int',
    type: 'text',
    hop: 'int',
    scope: 'text',
    target: 'text',
    target_kind: 'text',
    reason: 'text',
    detail: 'text',
    candidates: 'jsonb',
    considered: 'int',
    filtered: 'int',
    recorded_at: 'timestamptz',
  },
});

/** One recorded scheduling step, as `GET /v1/delegations` lists it. */
export const delegationStepViewSchema = z
  .object({
    workloadId: z.string(),
    revision: z.number().int().describe("the workload stream's revision of the event that records it"),
    step: z.number().int().describe('its place in that event'),
    namespace: z.string(),
    instance: z.number().int(),
    attempt: z.number().int(),
    type: z.enum(DELEGATION_STEP_TYPES),
    hop: z.number().int().nullable(),
    scope: z
      .string()
      .nullable()
      .describe("the deciding scope: a hop's parent, a rejecting scope, a placement's domain"),
    target: z.string().nullable().describe("a hop's child domain or node, a placement's node"),
    targetKind: z.string().nullable(),
    reason: z.string().nullable(),
    detail: z.string().nullable(),
    considered: z.number().int(),
    filtered: z.number().int(),
    candidates: z.array(z.unknown()).describe('the top candidates and their scores, as recorded'),
    recordedAt: z.string(),
  })
  .meta({ id: 'DelegationStep' });

/** One recorded scheduling step, as `GET /v1/delegations` lists it (see delegationStepViewSchema). */
export type DelegationStepView = z.output<typeof delegationStepViewSchema>;

/** Maps a delegation_hops row (as selected with `selectList`) to the view the API answers. */
export function delegationStepFromRow(r: DelegationHopRecord): DelegationStepView {
  return {
    workloadId: r.workload_id,
    revision: r.revision,
    step: r.step,
    namespace: r.namespace,
    instance: r.instance,
    attempt: r.attempt,
    type: r.type,
    hop: r.hop,
    scope: r.scope,
    target: r.target,
    targetKind: r.target_kind,
    reason: r.reason,
    detail: r.detail,
    considered: r.considered,
    filtered: r.filtered,
    candidates: r.candidates,
    recordedAt: new Date(r.recorded_at).toISOString(),
  };
}
