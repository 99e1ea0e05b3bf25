import { namespaceSchema, z } from '@hcn/contracts';
import {
  ALLOCATION_STATE,
  ALLOCATION_STATUSES,
  AllocationFields,
  AllocationStateRecord,
  allocationFieldsSchema,
  allocationFromRow,
  selectList,
} from '@hcn/read-models';
import { pageOf } from '../common/api-answer';
import type { DataSource } from 'typeorm';
import type { Key } from './cursor';
import { Conditions, Page, listPage, pageShape, repeatable, sortShape } from './list-query';
import type { NamespaceScope } from './workloads.query';

/** Sort fields of `GET /v1/allocations`, the default first. */
export const ALLOCATION_SORTS = ['placedAt', 'startedAt', 'endedAt', 'instance'] as const;

// qualified: the select list reads times as text under the same names
const SORT: Record<(typeof ALLOCATION_SORTS)[number], Key> = {
  placedAt: { sql: 'allocation_state.placed_at', type: 'timestamptz' },
  startedAt: { sql: 'allocation_state.started_at', type: 'timestamptz' },
  endedAt: { sql: 'allocation_state.ended_at', type: 'timestamptz' },
  instance: { sql: 'allocation_state.instance', type: 'numeric' },
};

/** Query parameters of `GET /v1/allocations` (the caller's namespaces come from its token). */
export const listAllocationsQuerySchema = z
  .object({
    workloadId: z.string().uuid().optional(),
    nodeId: z.string().uuid().optional(),
    /** One status or several (`status=running&status=failed`). */
    status: repeatable(z.enum(ALLOCATION_STATUSES), ALLOCATION_STATUSES.length),
    namespace: namespaceSchema.optional(),
    ...sortShape(ALLOCATION_SORTS, 'placedAt', 'desc'),
    ...pageShape,
  })
  .strict();

/** Parsed `GET /v1/allocations` parameters and the caller's namespaces. */
export type ListAllocationsQuery = z.output<typeof listAllocationsQuerySchema> & {
  namespaces: NamespaceScope;
};

/** An allocation as the API shows it. */
export type AllocationListItem = AllocationFields;

/** One page of `GET /v1/allocations`. */
export const allocationPageSchema = pageOf(allocationFieldsSchema, 'AllocationPage');

/** Lists allocations from allocation_state within the caller's namespaces (filters, sort, cursor pagination). */
export async function listAllocations(
  db: DataSource,
  query: ListAllocationsQuery,
): Promise<Page<AllocationListItem>> {
  const c = new Conditions();
  if (query.namespaces !== '*') c.add('namespace = ANY(?::text[])', query.namespaces);
  if (query.namespace) c.add('namespace = ?', query.namespace);
  if (query.workloadId) c.add('workload_id = ?', query.workloadId);
  if (query.nodeId) c.add('node_id = ?', query.nodeId);
  if (query.status.length > 0) c.add('status = ANY(?::text[])', query.status);
  const page = await listPage<AllocationStateRecord>(db, {
    columns: selectList(ALLOCATION_STATE),
    from: 'allocation_state',
    where: c,
    keyset: {
      sortName: query.sort,
      sort: SORT[query.sort],
      order: query.order,
      ties: [{ sql: 'allocation_state.allocation_id', type: 'uuid' }],
    },
    page: query,
  });
  return { ...page, items: page.items.map(allocationFromRow) };
}
