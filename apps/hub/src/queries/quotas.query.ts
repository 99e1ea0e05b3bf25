import { QuotaLimits, namespaceSchema, parseOrThrow } from '@hcn/contracts';
import type { DataSource } from 'typeorm';
import { NamespaceScope, namespaceScopeSchema } from './workloads.query';

/** Path parameter naming a namespace whose quota is read. */
export const quotaNamespaceParamSchema = namespaceSchema;

/** Amounts a namespace uses (or may still use), per resource. */
export interface QuotaAmounts {
  cpuMillis: number;
  memoryBytes: number;
  accelerators: number;
  acceleratorMemoryBytes: number;
  computeUnits: number;
  workloads: number;
}

/** A namespace's quota as the API shows it. */
export interface QuotaUsageView {
  namespace: string;
  /** Hard limits; a missing one means unlimited. */
  limits: QuotaLimits;
  used: QuotaAmounts;
  /** What is left under each limit (never below zero); null where there is no limit. */
  remaining: { [K in keyof QuotaAmounts]: number | null };
  /** When the namespace's quota last changed; null when it never had quota events (unlimited, nothing held). */
  updatedAt: string | null;
}

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
 * Limits and usage of the given namespaces, by name; with `'*'` every namespace that has quota events. A listed
 * namespace without any shows as unlimited and unused.
 */
export async function listQuotaUsage(db: DataSource, namespaces: NamespaceScope): Promise<QuotaUsageView[]> {
  const scope = parseOrThrow(namespaceScopeSchema, namespaces, 'QUOTAS.SCOPE', 'Namespaces');
  if (scope === '*') {
    const rows: Row[] = await db.query('SELECT * FROM quota_usage ORDER BY namespace');
    return rows.map((row) => view(row.namespace as string, row));
  }
  const rows: Row[] = await db.query('SELECT * FROM quota_usage WHERE namespace = ANY($1::text[])', [scope]);
  const byName = new Map(rows.map((row) => [row.namespace as string, row]));
  return [...new Set(scope)].sort().map((name) => view(name, byName.get(name)));
}
