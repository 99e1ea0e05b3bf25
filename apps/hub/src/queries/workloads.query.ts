import { namespaceSchema, parseOrThrow, z } from '@hcn/contracts';
import {
  WORKLOAD_LIST_COLUMNS,
  WORKLOAD_STATUSES,
  WorkloadListItem,
  WorkloadListRecord,
  workloadListItem,
  workloadListItemSchema,
} from '@hcn/read-models';
import { pageOf } from '../common/api-answer';
import type { DataSource } from 'typeorm';
import type { Key } from './cursor';
import { Conditions, Page, booleanParam, listPage, pageShape, repeatable, sortShape } from './list-query';

/** Which namespaces a caller may see: all of them, or a list. */
export const namespaceScopeSchema = z.union([z.literal('*'), z.array(namespaceSchema).max(1000)]);

/** Which namespaces a caller may see. */
export type NamespaceScope = z.output<typeof namespaceScopeSchema>;

/** Sort fields of `GET /v1/workloads`, the default first. */
export const WORKLOAD_SORTS = ['submittedAt', 'updatedAt', 'name', 'status', 'priority'] as const;

const SORT: Record<(typeof WORKLOAD_SORTS)[number], Key> = {
  submittedAt: { sql: 'workload_state.submitted_at', type: 'timestamptz' },
  updatedAt: { sql: 'workload_state.updated_at', type: 'timestamptz' },
  name: { sql: 'workload_state.name', type: 'text' },
  status: { sql: 'workload_state.status', type: 'text' },
  priority: { sql: 'workload_state.priority', type: 'numeric' },
};
const TIES: Key[] = [{ sql: 'workload_id', type: 'uuid' }];

/** Query parameters of `GET /v1/workloads` (the caller's namespaces come from its token, not from here). */
export const listWorkloadsQuerySchema = z
  .object({
    namespace: namespaceSchema.optional(),
    /** One status or several (`status=running&status=pending`). */
    status: repeatable(z.enum(WORKLOAD_STATUSES), WORKLOAD_STATUSES.length),
    /** Part of the name (names are a-z, 0-9, dots and dashes). */
    name: z
      .string()
      .regex(/^[a-z0-9.-]{1,63}$/, 'a part of a workload name: a-z, 0-9, dots, dashes')
      .optional(),
    /** Workloads with an instance whose current (or last) allocation is on this node. */
    nodeId: z.string().uuid().optional(),
    /** Deleted workloads are left out unless asked for (here or with status=deleted). */
    includeDeleted: booleanParam.default(false),
    ...sortShape(WORKLOAD_SORTS, 'submittedAt', 'desc'),
    ...pageShape,
  })
  .strict();

/** Parsed `GET /v1/workloads` parameters. */
export type ListWorkloadsQuery = z.output<typeof listWorkloadsQuerySchema>;

/** A workload as the list shows it (one mapping, in @hcn/read-models). */
export type { WorkloadListItem };

/** One page of `GET /v1/workloads`. */
export const workloadPageSchema = pageOf(workloadListItemSchema, 'WorkloadPage');

/** WHERE conditions of a listing (without the cursor). */
function filters(query: ListWorkloadsQuery, scope: NamespaceScope): Conditions {
  const c = new Conditions();
  if (scope !== '*') c.add('namespace = ANY(?::text[])', scope);
  if (query.namespace) c.add('namespace = ?', query.namespace);
  if (query.status.length > 0) c.add('status = ANY(?::text[])', query.status);
  if (!query.includeDeleted && !query.status.includes('deleted')) c.where.push('NOT deleted');
  if (query.name) c.add(`name LIKE ?`, `%${query.name}%`);
  if (query.nodeId) c.add('instances @> ?::jsonb', JSON.stringify([{ nodeId: query.nodeId }]));
  return c;
}

/**
 * Lists workloads from the workload_state read model, newest first, in the caller's namespaces, with filters and
 * cursor pagination; `total` counts every match.
 */
export async function listWorkloads(
  db: DataSource,
  input: z.input<typeof listWorkloadsQuerySchema> & { namespaces: NamespaceScope },
): Promise<Page<WorkloadListItem>> {
  const { namespaces, ...raw } = input;
  const query = parseOrThrow(listWorkloadsQuerySchema, raw, 'WORKLOADS.QUERY', 'Query');
  const scope = parseOrThrow(namespaceScopeSchema, namespaces, 'WORKLOADS.SCOPE', 'Namespaces');
  if (scope !== '*' && scope.length === 0) return { items: [], nextCursor: null, total: 0 };
  const page = await listPage<WorkloadListRecord>(db, {
    columns: WORKLOAD_LIST_COLUMNS,
    from: 'workload_state',
    where: filters(query, scope),
    keyset: { sortName: query.sort, sort: SORT[query.sort], order: query.order, ties: TIES },
    page: query,
  });
  return { ...page, items: page.items.map(workloadListItem) };
}
