import { namespaceSchema, parseOrThrow, z } from '@hcn/contracts';
import {
  WORKLOAD_LIST_COLUMNS,
  WORKLOAD_STATUSES,
  WorkloadListItem,
  WorkloadListRecord,
  workloadListItem,
} from '@hcn/read-models';
import type { DataSource } from 'typeorm';
import { Conditions, booleanParam, limitOffset, pageShape, repeatable, sortShape } from './list-query';

/** Which namespaces a caller may see: all of them, or a list. */
export const namespaceScopeSchema = z.union([z.literal('*'), z.array(namespaceSchema).max(1000)]);

/** Which namespaces a caller may see. */
export type NamespaceScope = z.output<typeof namespaceScopeSchema>;

/** Sort fields of `GET /v1/workloads`, the default first. */
export const WORKLOAD_SORTS = ['submittedAt', 'updatedAt', 'name', 'status', 'priority'] as const;

const SORT = {
  submittedAt: 'submitted_at',
  updatedAt: 'updated_at',
  name: 'name',
  status: 'status',
  priority: 'priority',
} as const;
const CAST = {
  submittedAt: 'timestamptz',
  updatedAt: 'timestamptz',
  name: 'text',
  status: 'text',
  priority: 'int',
};

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
    /** `nextCursor` of the previous page, same sort and order (keyset pagination; not combined with offset). */
    cursor: z.string().max(200).optional(),
  })
  .strict()
  .refine((q) => q.cursor === undefined || q.offset === 0, {
    message: 'use either cursor or offset',
    path: ['cursor'],
  });

/** Parsed `GET /v1/workloads` parameters. */
export type ListWorkloadsQuery = z.output<typeof listWorkloadsQuerySchema>;

/** A workload as the list shows it (one mapping, in @hcn/read-models). */
export type { WorkloadListItem };

/** One page of workloads, in the asked order (newest first by default). */
export interface WorkloadPage {
  items: WorkloadListItem[];
  total: number;
  limit: number;
  offset: number;
  /** Pass as `cursor` for the next page; null on the last page. */
  nextCursor: string | null;
}

/** A listed row and the text of its sort value (for the cursor). */
type Row = WorkloadListRecord & { cursor_at: string };

/** A cursor: the sort and order it continues, the last row's sort value (as text) and id. */
const cursorSchema = z.union([
  z.tuple([z.enum(WORKLOAD_SORTS), z.enum(['asc', 'desc']), z.string().max(100), z.string().uuid()]),
  /* Cursors issued before sorting existed: newest first. */
  z
    .tuple([z.string().datetime({ offset: true }), z.string().uuid()])
    .transform(([at, id]) => ['submittedAt', 'desc', at, id] as const),
]);

function encodeCursor(query: ListWorkloadsQuery, row: Row): string {
  return Buffer.from(JSON.stringify([query.sort, query.order, row.cursor_at, row.workload_id])).toString(
    'base64url',
  );
}

/** The keyset condition after a cursor's row; a cursor of another sort or order is refused. */
function afterCursor(query: ListWorkloadsQuery, c: Conditions): void {
  if (!query.cursor) return;
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(query.cursor, 'base64url').toString('utf8'));
  } catch {
    value = undefined;
  }
  const [sort, order, at, id] = parseOrThrow(cursorSchema, value, 'WORKLOADS.QUERY', 'Cursor');
  const same = z.literal(true, { error: 'the cursor belongs to another sort or order' });
  parseOrThrow(same, sort === query.sort && order === query.order, 'WORKLOADS.QUERY', 'Cursor');
  c.addEach(
    `(${SORT[sort]}, workload_id) ${order === 'asc' ? '>' : '<'} (?::${CAST[sort]}, ?::uuid)`,
    at,
    id,
  );
}

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
 * offset or cursor pagination; `total` counts every match.
 */
export async function listWorkloads(
  db: DataSource,
  input: z.input<typeof listWorkloadsQuerySchema> & { namespaces: NamespaceScope },
): Promise<WorkloadPage> {
  const { namespaces, ...raw } = input;
  const query = parseOrThrow(listWorkloadsQuerySchema, raw, 'WORKLOADS.QUERY', 'Query');
  const scope = parseOrThrow(namespaceScopeSchema, namespaces, 'WORKLOADS.SCOPE', 'Namespaces');
  const empty = { items: [], total: 0, limit: query.limit, offset: query.offset, nextCursor: null };
  if (scope !== '*' && scope.length === 0) return empty;
  const c = filters(query, scope);
  const count = `SELECT count(*)::int AS n FROM workload_state ${c.clause()}`;
  const countParams = [...c.params];
  afterCursor(query, c);
  const direction = query.order === 'asc' ? 'ASC' : 'DESC';
  const [rows, total]: [Row[], Array<{ n: number }>] = await Promise.all([
    db.query(
      `SELECT ${WORKLOAD_LIST_COLUMNS}, to_json(${SORT[query.sort]}) #>> '{}' AS cursor_at
       FROM workload_state ${c.clause()}
       ORDER BY workload_state.${SORT[query.sort]} ${direction}, workload_id ${direction} ${limitOffset({ ...query, limit: query.limit + 1 })}`,
      c.params,
    ),
    db.query(count, countParams),
  ]);
  const more = rows.length > query.limit;
  const items = rows.slice(0, query.limit);
  return {
    ...empty,
    items: items.map(workloadListItem),
    total: total[0].n,
    nextCursor: more ? encodeCursor(query, items[items.length - 1]) : null,
  };
}
