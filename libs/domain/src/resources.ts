import type { QuotaAmounts, ResourceAmounts, WorkloadSpec } from '@hcn/contracts';

/** No resources at all. */
export const NO_RESOURCES: ResourceAmounts = { cpuMillis: 0, memoryBytes: 0, accelerators: 0 };

/** Names of the resource kinds, for messages and loops. */
export const RESOURCE_KINDS = ['cpuMillis', 'memoryBytes', 'accelerators'] as const;

/** Sum of two amounts. */
export function addAmounts(a: ResourceAmounts, b: ResourceAmounts): ResourceAmounts {
  return {
    cpuMillis: a.cpuMillis + b.cpuMillis,
    memoryBytes: a.memoryBytes + b.memoryBytes,
    accelerators: a.accelerators + b.accelerators,
  };
}

/**
 * A running total, per kind, after `before` is taken out of it and `after` put in (either may be absent): what a
 * state keeps instead of adding up all its holdings when one changes.
 */
export function retotal<K extends string>(
  kinds: readonly K[],
  total: Readonly<Record<K, number>>,
  before: Readonly<Record<K, number>> | undefined,
  after: Readonly<Record<K, number>> | undefined,
): Record<K, number> {
  const next = {} as Record<K, number>;
  for (const kind of kinds) next[kind] = total[kind] - (before?.[kind] ?? 0) + (after?.[kind] ?? 0);
  return next;
}

/** `a` times `n` (a per-replica request times the replicas). */
export function scaleAmounts(a: ResourceAmounts, n: number): ResourceAmounts {
  return { cpuMillis: a.cpuMillis * n, memoryBytes: a.memoryBytes * n, accelerators: a.accelerators * n };
}

/** The resource kinds in which `need` exceeds `free` (empty when it fits). */
export function shortfalls(need: ResourceAmounts, free: ResourceAmounts): string[] {
  return RESOURCE_KINDS.filter((kind) => need[kind] > free[kind]).map(
    (kind) => `${kind}: need ${need[kind]}, free ${free[kind]}`,
  );
}

/** Nothing held against a quota. */
export const NO_QUOTA_AMOUNTS: QuotaAmounts = { ...NO_RESOURCES, acceleratorMemoryBytes: 0, computeUnits: 0 };

/** Names of the amounts a quota limits (beyond the workload count). */
export const QUOTA_KINDS = [...RESOURCE_KINDS, 'acceleratorMemoryBytes', 'computeUnits'] as const;

/** Sum of two quota holdings. */
export function addQuotaAmounts(a: QuotaAmounts, b: QuotaAmounts): QuotaAmounts {
  return {
    ...addAmounts(a, b),
    acceleratorMemoryBytes: a.acceleratorMemoryBytes + b.acceleratorMemoryBytes,
    computeUnits: a.computeUnits + b.computeUnits,
  };
}

/**
 * What a workload holds against its quota: per replica its resources, the accelerator memory its device request
 * names (memory per device × devices, or the slice) and the compute units it asks; times the replicas.
 */
export function quotaAmountsOf(spec: Pick<WorkloadSpec, 'resources' | 'replicas' | 'devices'>): QuotaAmounts {
  const d = spec.devices;
  const memory = d ? (d.sliceMemoryBytes ?? (d.memoryPerDeviceBytes ?? 0) * d.count) : 0;
  return {
    ...scaleAmounts(spec.resources, spec.replicas),
    acceleratorMemoryBytes: memory * spec.replicas,
    computeUnits: (d?.computeUnits ?? 0) * spec.replicas,
  };
}
