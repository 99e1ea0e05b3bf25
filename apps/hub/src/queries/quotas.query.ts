import { QuotaLimits, namespaceSchema, parseOrThrow, quotaLimitsSchema, z } from '@hcn/contracts';
import type { DataSource } from 'typeorm';
import { pageOf } from '../common/api-answer';
import type { Key } from './cursor';
import { Conditions, Page, listPage, pageShape, repeatable, sortShape } from './list-query';
import { NamespaceScope, namespaceScopeSchema } from './workloads.query';

/** Sort fields of `GET /v1/quotas`, the default first (usage sorts are used / limit; unlimited ones last). */
export const QUOTA_SORTS = [
  'namespace',
  'updatedAt',
  'cpuUsage',
  'memoryUsage',
  'acceleratorsUsage',
  'workloadsUsage',
] as const;

const ratio = (used: string, limit: string): Key => ({
  sql: `(coalesce(${used}, 0)::float8 / NULLIF((limits->>'${limit}')::float8, 0))`,
  type: 'numeric',
});
const SORT: Record<(typeof QUOTA_SORTS)[number], Key> = {
  namespace: { sql: 'namespace', type: 'text' },
  updatedAt: { sql: 'updated_at', type: 'timestamptz' },
  cpuUsage: ratio('used_cpu_millis', 'cpuMillis'),
  memoryUsage: ratio('used_memory_bytes', 'memoryBytes'),
  acceleratorsUsage: ratio('used_accelerators', 'accelerators'),
  workloadsUsage: ratio('used_workloads', 'workloads'),
};

/** Query parameters of `GET /v1/quotas` (the caller's namespaces come from its token). */
export const listQuotasQuerySchema = z
  .object({
    /** Only these namespaces (repeatable). */
    namespace: repeatable(namespaceSchema, 1000),
    /** Namespaces whose name starts with this. */
    prefix: z
      .string()
      .regex(/^[a-z0-9-]{1,63}$/, 'a namespace prefix: a-z, 0-9, dashes')
      .optional(),
    ...sortShape(QUOTA_SORTS, 'namespace'),
    ...pageShape,
  })
  .strict();

/** Parsed `GET /v1/quotas` parameters. */
export type ListQuotasQuery = z.output<typeof listQuotasQuerySchema>;

/** Path parameter naming a namespace whose quota is read. */
export const quotaNamespaceParamSchema = namespaceSchema;

/** Amounts a namespace uses (or may still use), per resource. */
const quotaAmountsViewSchema = z
  .object({
    cpuMillis: z.number(),
    memoryBytes: z.number(),
    accelerators: z.number(),
    acceleratorMemoryBytes: z.number(),
    computeUnits: z.number(),
    workloads: z.number(),
  })
  .meta({ id: 'QuotaAmounts' });

/** Amounts a namespace uses (or may still use), per resource. */
export type QuotaAmounts = z.output<typeof quotaAmountsViewSchema>;

/** Hard limits of a namespace, as answers show them (a missing one means unlimited). */
const quotaLimitsViewSchema = quotaLimitsSchema.meta({ id: 'QuotaLimits' });

/** A namespace's quota as the list shows it (from the read model). */
export const quotaUsageViewSchema = z
  .object({
    namespace: z.string(),
    limits: quotaLimitsViewSchema,
    used: quotaAmountsViewSchema,
    remaining: z
      .object(
        Object.fromEntries(
          Object.keys(quotaAmountsViewSchema.shape).map((k) => [k, z.number().nullable()]),
        ) as Record<keyof QuotaAmounts, z.ZodNullable<z.ZodNumber>>,
      )
      .describe('what is left under each limit (never below zero); null where there is no limit'),
    updatedAt: z
      .string()
      .nullable()
      .describe('when the quota last changed; null when it never had quota events (unlimited, nothing held)'),
  })
  .meta({ id: 'QuotaUsage' });

/** A namespace's quota as the list shows it (see quotaUsageViewSchema). */
export type QuotaUsageView = z.output<typeof quotaUsageViewSchema>;

/** One page of `GET /v1/quotas`. */
export const quotaPageSchema = pageOf(quotaUsageViewSchema, 'QuotaUsagePage');

/** One namespace's quota as `GET /v1/quotas/:namespace` answers it, from its stream. */
export const quotaSchema = z
  .object({
    namespace: z.string(),
    limits: quotaLimitsViewSchema,
    limitsSource: z
      .enum(['namespace', 'default', 'none'])
      .describe("the namespace's own limits, the default quota (HCN_DEFAULT_QUOTA), or none"),
    used: quotaAmountsViewSchema,
    holders: z.number().int().describe('workloads holding quota'),
  })
  .meta({ id: 'Quota' });

/** One namespace's quota as `GET /v1/quotas/:namespace` answers it (see quotaSchema). */
export type QuotaView = z.output<typeof quotaSchema>;

type Row = Record<string, unknown>;

function view(namespace: string, row: Row | undefined): QuotaUsageView {
  const limits = (row?.limits ?? {}) as QuotaLimits;
  const used: QuotaAmounts = {
    cpuMillis: Number(row?.used_cpu_millis ?? 0),
    memoryBytes: Number(row?.used_memory_bytes ?? 0),
    accelerators: Number(row?.used_accelerators ?? 0),
    acceleratorMemoryBytes: Number(row?.used_accelerator_memory_bytes ?? 0),
    computeUnits: Number(row?.used_compute_units ?? 0),
    workloads: Number(row?.used_workloads ?? 0),
  };
  const left = (key: keyof QuotaAmounts): number | null => {
    const limit = limits[key];
    return limit === undefined ? null : Math.max(0, limit - used[key]);
  };
  return {
    namespace,
    limits,
    used,
    remaining: {
      cpuMillis: left('cpuMillis'),
      memoryBytes: left('memoryBytes'),
      accelerators: left('accelerators'),
      acceleratorMemoryBytes: left('acceleratorMemoryBytes'),
      computeUnits: left('computeUnits'),
      workloads: left('workloads'),
    },
    updatedAt: row?.updated_at ? new Date(row.updated_at as string).toISOString() : null,
  };
}

/** One namespace's limits and usage from quota_usage (unlimited and unused when it has none). */
export async function quotaUsage(db: DataSource, namespace: string): Promise<QuotaUsageView> {
  const name = parseOrThrow(quotaNamespaceParamSchema, namespace, 'QUOTAS.NAMESPACE', 'Namespace');
  const rows: Row[] = await db.query('SELECT * FROM quota_usage WHERE namespace = $1', [name]);
  return view(name, rows[0]);
}

/**
 * Limits and usage of the given namespaces (by name unless sorted otherwise), one page and the count of matches; with `'*'`
 * every namespace that has quota events. A listed namespace without any shows as unlimited and unused.
 */
export async function listQuotaUsage(
  db: DataSource,
  namespaces: NamespaceScope,
  query: ListQuotasQuery = listQuotasQuerySchema.parse({}),
): Promise<Page<QuotaUsageView>> {
  const scope = parseOrThrow(namespaceScopeSchema, namespaces, 'QUOTAS.SCOPE', 'Namespaces');
  const c = new Conditions();
  const from =
    scope === '*'
      ? 'quota_usage'
      : `(SELECT DISTINCT unnest(${c.param(scope)}::text[]) AS namespace) n LEFT JOIN quota_usage q USING (namespace)`;
  if (query.namespace.length > 0) c.add('namespace = ANY(?::text[])', query.namespace);
  if (query.prefix) c.add(`starts_with(namespace, ?)`, query.prefix);
  const page = await listPage<Row>(db, {
    columns: '*',
    from,
    where: c,
    keyset: {
      sortName: query.sort,
      sort: SORT[query.sort],
      order: query.order,
      ties: [{ sql: 'namespace', type: 'text' }],
    },
    page: query,
  });
  return { ...page, items: page.items.map((row) => view(row.namespace as string, row)) };
}

/**
 * Quota holds whose workload has no row in the workloads read model (a submission whose append never happened,
 * or one the projector has not caught up with yet): candidates for the saga's orphan sweep, which checks them.
 */
export async function unrecordedQuotaHolds(
  db: DataSource,
  limit = 1000,
): Promise<Array<{ workloadId: string; namespace: string }>> {
  const rows: Array<{ workload_id: string; namespace: string }> = await db.query(
    `SELECT h.workload_id, h.namespace FROM quota_hold h
     WHERE NOT EXISTS (SELECT 1 FROM workload_state w WHERE w.workload_id = h.workload_id) LIMIT $1`,
    [limit],
  );
  return rows.map((r) => ({ workloadId: r.workload_id, namespace: r.namespace }));
}
