import type { AcceleratorDevice } from './device.schemas';

const FNV_OFFSET = 0xcbf29ce484222325n;
const FNV_PRIME = 0x100000001b3n;
const MASK_64 = 0xffffffffffffffffn;

/** 64-bit FNV-1a hash of a string's UTF-16 code units, as 16 hex digits. */
export function fnv1a64(text: string): string {
  let hash = FNV_OFFSET;
  for (let i = 0; i < text.length; i++) {
    hash ^= BigInt(text.charCodeAt(i));
    hash = (hash * FNV_PRIME) & MASK_64;
  }
  return hash.toString(16).padStart(16, '0');
}

/**
 * Stable fingerprint of a node's hardware: the hash of `vendor|model|memoryBytes` of every device, sorted, so
 * it changes when a device is added, removed or swapped for another model, but not with order, index, health,
 * bus ids or links.
 */
export function deviceFingerprint(
  devices: readonly Pick<AcceleratorDevice, 'vendor' | 'model' | 'memoryBytes'>[],
): string {
  const entries = devices.map((d) => `${d.vendor}|${d.model.trim().toLowerCase()}|${d.memoryBytes ?? ''}`);
  return fnv1a64(entries.sort().join('\n'));
}
