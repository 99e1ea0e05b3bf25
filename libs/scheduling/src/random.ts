/** FNV-1a (32 bit) of a string's UTF-16 code units. */
export function fnv1a32(text: string, seed = 0x811c9dc5): number {
  let hash = seed >>> 0;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash >>> 0;
}

/** One mulberry32 output for a state: a well-mixed uint32. */
export function mulberry32Step(state: number): number {
  let t = (state + 0x6d2b79f5) >>> 0;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return (t ^ (t >>> 14)) >>> 0;
}

/** A mulberry32 generator of numbers in [0, 1). */
export function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    const out = mulberry32Step(state);
    state = (state + 0x6d2b79f5) >>> 0;
    return out / 4294967296;
  };
}

/** The seed of one decision: FNV-1a of the workload id and instance index. */
export function decisionSeed(workloadId: string, instance: number): number {
  return fnv1a32(`${workloadId}#${instance}`);
}

/** A uint32 that depends only on the seed, a salt and a candidate's id hash (order-independent draws). */
export function drawFor(seed: number, salt: number, idHash: number): number {
  return mulberry32Step((seed ^ Math.imul(idHash, 0x9e3779b1) ^ salt) >>> 0);
}
