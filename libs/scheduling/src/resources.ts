import type { Resources } from './model';

/** The keys of `Resources`, in the order details report them. */
export type ResourceKey = keyof Resources;

/** Every resource key, in a fixed order (cpu, memory, accelerators). */
export const RESOURCE_KEYS: readonly ResourceKey[] = ['cpuMillis', 'memoryBytes', 'accelerators'];

/** No resources at all. */
export const ZERO_RESOURCES: Resources = Object.freeze({ cpuMillis: 0, memoryBytes: 0, accelerators: 0 });

/** A mutable copy of some resources. */
export interface MutableResources {
  cpuMillis: number;
  memoryBytes: number;
  accelerators: number;
}

/** A fresh mutable copy. */
export function copyResources(r: Resources): MutableResources {
  return { cpuMillis: r.cpuMillis, memoryBytes: r.memoryBytes, accelerators: r.accelerators };
}

/** a + b, per resource. */
export function addResources(a: Resources, b: Resources): Resources {
  return {
    cpuMillis: a.cpuMillis + b.cpuMillis,
    memoryBytes: a.memoryBytes + b.memoryBytes,
    accelerators: a.accelerators + b.accelerators,
  };
}

/** a - b, per resource (may go negative; see `freeOf` for a clamped difference). */
export function subtractResources(a: Resources, b: Resources): Resources {
  return {
    cpuMillis: a.cpuMillis - b.cpuMillis,
    memoryBytes: a.memoryBytes - b.memoryBytes,
    accelerators: a.accelerators - b.accelerators,
  };
}

/** Free amounts of a node: capacity - allocated, never below zero. */
export function freeOf(capacity: Resources, allocated: Resources): Resources {
  return {
    cpuMillis: Math.max(0, capacity.cpuMillis - allocated.cpuMillis),
    memoryBytes: Math.max(0, capacity.memoryBytes - allocated.memoryBytes),
    accelerators: Math.max(0, capacity.accelerators - allocated.accelerators),
  };
}

/** True when every requested amount is at most the free amount. */
export function fitsIn(resources: Resources, free: Resources): boolean {
  return (
    resources.cpuMillis <= free.cpuMillis &&
    resources.memoryBytes <= free.memoryBytes &&
    resources.accelerators <= free.accelerators
  );
}

/** The first resource (cpu, memory, accelerators) that does not fit, or undefined. */
export function firstShortfall(resources: Resources, free: Resources): ResourceKey | undefined {
  if (resources.cpuMillis > free.cpuMillis) return 'cpuMillis';
  if (resources.memoryBytes > free.memoryBytes) return 'memoryBytes';
  if (resources.accelerators > free.accelerators) return 'accelerators';
  return undefined;
}

/** True when every amount is a finite number ≥ 0. */
export function isValidAmount(r: Resources): boolean {
  return RESOURCE_KEYS.every((k) => Number.isFinite(r[k]) && r[k] >= 0);
}

/** A human rendering of one amount: `4000m`, `12.5GiB`, `2`. */
export function formatAmount(key: ResourceKey, value: number): string {
  if (key === 'cpuMillis') return `${value}m`;
  if (key === 'memoryBytes') return `${Math.round((value / 2 ** 30) * 100) / 100}GiB`;
  return `${value}`;
}

/** Short human names of the resources. */
export const RESOURCE_NAMES: Readonly<Record<ResourceKey, string>> = {
  cpuMillis: 'cpu',
  memoryBytes: 'memory',
  accelerators: 'accelerators',
};
