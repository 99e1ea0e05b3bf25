import { namespaceSchema, z } from '@hcn/contracts';
import {
  DELEGATION_HOPS,
  DELEGATION_STEP_TYPES,
  DelegationHopRecord,
  DelegationStepView,
  delegationStepFromRow,
  delegationStepViewSchema,
  selectList,
} from '@hcn/read-models';
import { pageOf } from '../common/api-answer';
import type { DataSource } from 'typeorm';
import type { Key } from './cursor';
import { Conditions, Page, listPage, pageShape, repeatable, sortShape } from './list-query';
import type { NamespaceScope } from './workloads.query';

export type { DelegationStepView };

/** One page of `GET /v1/delegations`. */
export const delegationPageSchema = pageOf(delegationStepViewSchema, 'DelegationStepPage');

/** Sort fields of `GET /v1/delegations`, the default first. */
export const DELEGATION_SORTS = ['recordedAt', 'filtered', 'considered'] as const;

/** Query parameters of `GET /v1/delegations` (the caller's namespaces come from its token). */
export const listDelegationsQuerySchema = z
  .object({
    workloadId: z.string().uuid().optional(),
    namespace: namespaceSchema.optional(),
    /** delegated, rejected, placed, unschedulable (repeatable). */
    type: repeatable(z.enum(DELEGATION_STEP_TYPES)),
    /** The deciding scope: a hop's parent, a rejecting scope, a placement's domain. */
    scope: z.string().max(64).optional(),
    /** A hop's child domain or node, a placement's node. */
    target: z.string().max(64).optional(),
    /** A rejection reason (or one of an unschedulable verdict's reasons). */
    reason: z.string().max(64).optional(),
    since: z.string().datetime({ offset: true }).optional(),
    until: z.string().datetime({ offset: true }).optional(),
    ...sortShape(DELEGATION_SORTS, 'recordedAt', 'desc'),
    ...pageShape,
  })
  .strict();

const SORT: Record<(typeof DELEGATION_SORTS)[number], Key> = {
  recordedAt: { sql: 'recorded_at', type: 'timestamptz' },
  filtered: { sql: 'filtered', type: 'numeric' },
  considered: { sql: 'considered', type: 'numeric' },
};
const TIES: Key[] = [
  { sql: 'workload_id', type: 'uuid' },
  { sql: 'revision', type: 'numeric' },
  { sql: 'step', type: 'numeric' },
];

/** Lists delegation steps across workloads from delegation_hops (filters, sort, cursor pagination, namespace scope). */
export async function listDelegations(
  db: DataSource,
  query: z.output<typeof listDelegationsQuerySchema> & { namespaces: NamespaceScope },
): Promise<Page<DelegationStepView>> {
  const c = new Conditions();
  if (query.namespaces !== '*') c.add('namespace = ANY(?::text[])', query.namespaces);
  if (query.namespace) c.add('namespace = ?', query.namespace);
  if (query.workloadId) c.add('workload_id = ?', query.workloadId);
  if (query.type.length > 0) c.add('type = ANY(?::text[])', query.type);
  if (query.scope) c.add('scope = ?', query.scope);
  if (query.target) c.add('target = ?', query.target);
  if (query.reason) c.add(`(reason = ? OR ? = ANY(string_to_array(reason, ',')))`, query.reason);
  if (query.since) c.add('recorded_at >= ?', query.since);
  if (query.until) c.add('recorded_at < ?', query.until);
  const page = await listPage<DelegationHopRecord>(db, {
    columns: selectList(DELEGATION_HOPS),
    from: DELEGATION_HOPS.name,
    where: c,
    keyset: { sortName: query.sort, sort: SORT[query.sort], order: query.order, ties: TIES },
    page: query,
  });
  return {
    ...page,
    items: page.items.map(delegationStepFromRow),
  };
}
