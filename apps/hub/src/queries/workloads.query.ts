import { namespaceSchema, parseOrThrow, z } from '@hcn/contracts';
import { AllocationFields, WORKLOAD_STATUSES, WorkloadInstance, allocationFromRow } from '@hcn/read-models';
import type { DataSource } from 'typeorm';

/** Which namespaces a caller may see: all of them, or a list. */
export const namespaceScopeSchema = z.union([z.literal('*'), z.array(namespaceSchema).max(1000)]);

/** Which namespaces a caller may see. */
export type NamespaceScope = z.output<typeof namespaceScopeSchema>;

const booleanParam = z.union([z.boolean(), z.enum(['true', 'false']).transform((v) => v === 'true')]);

/** Query parameters of `GET /v1/workloads` (the caller's namespaces come from its token, not from here). */
export const listWorkloadsQuerySchema = z
  .object({
    namespace: namespaceSchema.optional(),
    /** One status or several (`status=running&status=pending`). */
    status: z
      .union([z.enum(WORKLOAD_STATUSES), z.array(z.enum(WORKLOAD_STATUSES)).max(WORKLOAD_STATUSES.length)])
      .optional()
      .transform((v) => (v === undefined ? [] : [v].flat())),
    /** Part of the name (names are a-z, 0-9, dots and dashes). */
    name: z
      .string()
      .regex(/^[a-z0-9.-]{1,63}$/, 'a part of a workload name: a-z, 0-9, dots, dashes')
      .optional(),
    /** Workloads with an instance whose current (or last) allocation is on this node. */
    nodeId: z.string().uuid().optional(),
    /** Deleted workloads are left out unless asked for (here or with status=deleted). */
    includeDeleted: booleanParam.default(false),
    limit: z.coerce.number().int().min(1).max(1000).default(100),
    offset: z.coerce.number().int().min(0).default(0),
    /** `nextCursor` of the previous page (keyset pagination; not combined with offset). */
    cursor: z.string().max(200).optional(),
  })
  .strict()
  .refine((q) => q.cursor === undefined || q.offset === 0, {
    message: 'use either cursor or offset',
    path: ['cursor'],
  });

/** Parsed `GET /v1/workloads` parameters. */
export type ListWorkloadsQuery = z.output<typeof listWorkloadsQuerySchema>;

/** A workload as the list shows it (no spec: commands and environment stay in the single-workload view). */
export interface WorkloadListItem {
  workloadId: string;
  namespace: string;
  name: string;
  type: string;
  status: string;
  priority: number;
  replicas: number;
  generation: number;
  resources: { cpuMillis: number; memoryBytes: number; accelerators: number };
  instances: WorkloadInstance[];
  hops: number;
  stopRequested: boolean;
  deleted: boolean;
  submittedAt: string;
  updatedAt: string;
}

/** One page of workloads, newest first. */
export interface WorkloadPage {
  items: WorkloadListItem[];
  total: number;
  limit: number;
  offset: number;
  /** Pass as `cursor` for the next page; null on the last page. */
  nextCursor: string | null;
}

type Row = Record<string, unknown>;

const cursorSchema = z.tuple([z.string().datetime({ offset: true }), z.string().uuid()]);

function encodeCursor(row: Row): string {
  return Buffer.from(JSON.stringify([row.cursor_at, row.workload_id])).toString('base64url');
}

function decodeCursor(cursor: string): [string, string] {
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    value = undefined;
  }
  return parseOrThrow(cursorSchema, value, 'WORKLOADS.QUERY', 'Cursor');
}

function toItem(row: Row): WorkloadListItem {
  const resources = row.resources as WorkloadListItem['resources'];
  return {
    workloadId: row.workload_id as string,
    namespace: row.namespace as string,
    name: row.name as string,
    type: row.type as string,
    status: row.status as string,
    priority: row.priority as number,
    replicas: row.replicas as number,
    generation: row.generation as number,
    resources: { ...resources, accelerators: resources.accelerators ?? 0 },
    instances: row.instances as WorkloadInstance[],
    hops: row.hops as number,
    stopRequested: row.stop_requested as boolean,
    deleted: row.deleted as boolean,
    submittedAt: new Date(row.submitted_at as string).toISOString(),
    updatedAt: new Date(row.updated_at as string).toISOString(),
  };
}

/** WHERE conditions of a listing (without the cursor) and their parameters. */
function filters(query: ListWorkloadsQuery, scope: NamespaceScope): { where: string[]; params: unknown[] } {
  const where: string[] = [];
  const params: unknown[] = [];
  const add = (sql: string, value: unknown): void => {
    params.push(value);
    where.push(sql.replace('?', `$${params.length}`));
  };
  if (scope !== '*') add('namespace = ANY(?::text[])', scope);
  if (query.namespace) add('namespace = ?', query.namespace);
  if (query.status.length > 0) add('status = ANY(?::text[])', query.status);
  if (!query.includeDeleted && !query.status.includes('deleted')) where.push('NOT deleted');
  if (query.name) add(`name LIKE ?`, `%${query.name}%`);
  if (query.nodeId) add('instances @> ?::jsonb', JSON.stringify([{ nodeId: query.nodeId }]));
  return { where, params };
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
  const { where, params } = filters(query, scope);
  const count = `SELECT count(*)::int AS n FROM workload_state ${where.length ? `WHERE ${where.join(' AND ')}` : ''}`;
  const page = [...where];
  const pageParams = [...params];
  if (query.cursor) {
    pageParams.push(...decodeCursor(query.cursor));
    page.push(
      `(submitted_at, workload_id) < ($${pageParams.length - 1}::timestamptz, $${pageParams.length}::uuid)`,
    );
  }
  const [rows, total]: [Row[], Array<{ n: number }>] = await Promise.all([
    db.query(
      `SELECT workload_id, namespace, name, type, status, priority, replicas, generation, spec->'resources' AS resources,
         instances, hops, stop_requested, deleted, submitted_at, updated_at, to_json(submitted_at) #>> '{}' AS cursor_at
       FROM workload_state ${page.length ? `WHERE ${page.join(' AND ')}` : ''}
       ORDER BY submitted_at DESC, workload_id DESC LIMIT ${query.limit + 1} OFFSET ${query.offset}`,
      pageParams,
    ),
    db.query(count, params),
  ]);
  const more = rows.length > query.limit;
  const items = rows.slice(0, query.limit);
  return {
    ...empty,
    items: items.map(toItem),
    total: total[0].n,
    nextCursor: more ? encodeCursor(items[items.length - 1]) : null,
  };
}

/** An allocation as the API shows it. */
export type AllocationListItem = AllocationFields<string>;

/** Path parameter naming a workload. */
export const workloadIdParamSchema = z.string().uuid();

function toAllocation(row: Row): AllocationListItem {
  return allocationFromRow(row, (v) => new Date(v as string).toISOString());
}

/** Every allocation of a workload (all instances and attempts) from allocation_state, within the caller's scope. */
export async function listAllocations(
  db: DataSource,
  workloadId: string,
  namespaces: NamespaceScope = '*',
): Promise<AllocationListItem[]> {
  const id = parseOrThrow(workloadIdParamSchema, workloadId, 'WORKLOADS.ID', 'Workload id');
  const scope = parseOrThrow(namespaceScopeSchema, namespaces, 'WORKLOADS.SCOPE', 'Namespaces');
  const rows: Row[] = await db.query(
    `SELECT * FROM allocation_state WHERE workload_id = $1 AND ($2::text[] IS NULL OR namespace = ANY($2::text[]))
     ORDER BY instance, attempt, placed_at, allocation_id`,
    [id, scope === '*' ? null : scope],
  );
  return rows.map(toAllocation);
}
