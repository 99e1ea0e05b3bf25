import { namespaceSchema, z } from '@hcn/contracts';
import type { DataSource } from 'typeorm';
import type { NamespaceScope } from './workloads.query';

const STEP_TYPES = ['delegated', 'rejected', 'placed', 'unschedulable'] as const;
const repeatable = <T extends z.ZodTypeAny>(item: T) =>
  z
    .union([item, z.array(item).max(20)])
    .optional()
    .transform((v) => (v === undefined ? [] : ([v].flat() as Array<z.output<T>>)));

/** Query parameters of `GET /v1/delegations` (the caller's namespaces come from its token). */
export const listDelegationsQuerySchema = z
  .object({
    workloadId: z.string().uuid().optional(),
    namespace: namespaceSchema.optional(),
    /** delegated, rejected, placed, unschedulable (repeatable). */
    type: repeatable(z.enum(STEP_TYPES)),
    /** The deciding scope: a hop's parent, a rejecting scope, a placement's domain. */
    scope: z.string().max(64).optional(),
    /** A hop's child domain or node, a placement's node. */
    target: z.string().max(64).optional(),
    /** A rejection reason (or one of an unschedulable verdict's reasons). */
    reason: z.string().max(64).optional(),
    since: z.string().datetime({ offset: true }).optional(),
    until: z.string().datetime({ offset: true }).optional(),
    sort: z.enum(['recordedAt', 'filtered', 'considered']).default('recordedAt'),
    order: z.enum(['asc', 'desc']).default('desc'),
    limit: z.coerce.number().int().min(1).max(1000).default(100),
    offset: z.coerce.number().int().min(0).default(0),
  })
  .strict();

const SORT = { recordedAt: 'recorded_at', filtered: 'filtered', considered: 'considered' } as const;

/** One recorded scheduling step, as `GET /v1/delegations` lists it. */
export interface DelegationStepView {
  workloadId: string;
  revision: number;
  namespace: string;
  instance: number;
  attempt: number;
  type: (typeof STEP_TYPES)[number];
  hop: number | null;
  scope: string | null;
  target: string | null;
  targetKind: string | null;
  reason: string | null;
  detail: string | null;
  considered: number;
  filtered: number;
  candidates: unknown[];
  recordedAt: string;
}

type Row = Record<string, unknown>;

/** Lists delegation steps across workloads from delegation_hops (filters, sort, pagination, namespace scope). */
export async function listDelegations(
  db: DataSource,
  query: z.output<typeof listDelegationsQuerySchema> & { namespaces: NamespaceScope },
): Promise<{ items: DelegationStepView[]; total: number; limit: number; offset: number }> {
  const where: string[] = [];
  const params: unknown[] = [];
  const add = (sql: string, value: unknown): void => {
    params.push(value);
    where.push(sql.replaceAll('?', `$${params.length}`));
  };
  if (query.namespaces !== '*') add('namespace = ANY(?::text[])', query.namespaces);
  if (query.namespace) add('namespace = ?', query.namespace);
  if (query.workloadId) add('workload_id = ?', query.workloadId);
  if (query.type.length > 0) add('type = ANY(?::text[])', query.type);
  if (query.scope) add('scope = ?', query.scope);
  if (query.target) add('target = ?', query.target);
  if (query.reason) add(`(reason = ? OR ? = ANY(string_to_array(reason, ',')))`, query.reason);
  if (query.since) add('recorded_at >= ?', query.since);
  if (query.until) add('recorded_at < ?', query.until);
  const clause = where.length > 0 ? `WHERE ${where.join(' AND ')}` : '';
  const direction = query.order === 'asc' ? 'ASC' : 'DESC';
  const [rows, count] = await Promise.all([
    db.query(
      `SELECT * FROM delegation_hops ${clause}
       ORDER BY ${SORT[query.sort]} ${direction}, workload_id, revision LIMIT ${query.limit} OFFSET ${query.offset}`,
      params,
    ),
    db.query(`SELECT count(*)::int AS n FROM delegation_hops ${clause}`, params),
  ]);
  return {
    items: (rows as Row[]).map((r) => ({
      workloadId: r.workload_id as string,
      revision: r.revision as number,
      namespace: r.namespace as string,
      instance: r.instance as number,
      attempt: r.attempt as number,
      type: r.type as DelegationStepView['type'],
      hop: r.hop as number | null,
      scope: r.scope as string | null,
      target: r.target as string | null,
      targetKind: r.target_kind as string | null,
      reason: r.reason as string | null,
      detail: r.detail as string | null,
      considered: r.considered as number,
      filtered: r.filtered as number,
      candidates: r.candidates as unknown[],
      recordedAt: new Date(r.recorded_at as string).toISOString(),
    })),
    total: count[0].n,
    limit: query.limit,
    offset: query.offset,
  };
}
