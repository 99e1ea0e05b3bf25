import type { Resources } from '../../model';

// Unrolled over the three resources: these run once per candidate per decision.

/** Mean over the resources the candidate has (capacity > 0) of free / capacity, in [0, 1]; 0 with no capacity. */
export function meanFreeFraction(capacity: Resources, free: Resources): number {
  return meanLeftFraction(capacity, free, NOTHING);
}

/** Mean over the resources the candidate has of (free - request) / capacity, in [0, 1]: what placing leaves. */
export function meanLeftFraction(capacity: Resources, free: Resources, request: Resources): number {
  let sum = 0;
  let dims = 0;
  if (capacity.cpuMillis > 0) {
    sum += clamp01((free.cpuMillis - request.cpuMillis) / capacity.cpuMillis);
    dims++;
  }
  if (capacity.memoryBytes > 0) {
    sum += clamp01((free.memoryBytes - request.memoryBytes) / capacity.memoryBytes);
    dims++;
  }
  if (capacity.accelerators > 0) {
    sum += clamp01((free.accelerators - request.accelerators) / capacity.accelerators);
    dims++;
  }
  return dims === 0 ? 0 : sum / dims;
}

/** Smallest over the resources the candidate has of (free - request) / capacity, in [0, 1]. */
export function minLeftFraction(capacity: Resources, free: Resources, request: Resources): number {
  let min = 2;
  if (capacity.cpuMillis > 0) min = Math.min(min, (free.cpuMillis - request.cpuMillis) / capacity.cpuMillis);
  if (capacity.memoryBytes > 0)
    min = Math.min(min, (free.memoryBytes - request.memoryBytes) / capacity.memoryBytes);
  if (capacity.accelerators > 0) {
    min = Math.min(min, (free.accelerators - request.accelerators) / capacity.accelerators);
  }
  return min === 2 ? 0 : clamp01(min);
}

/** Clamps to [0, 1]; NaN becomes 0. */
export function clamp01(x: number): number {
  return x > 0 ? (x < 1 ? x : 1) : 0;
}

const NOTHING: Resources = { cpuMillis: 0, memoryBytes: 0, accelerators: 0 };
