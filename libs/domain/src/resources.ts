import type { ResourceAmounts } from '@hcn/contracts';

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
