import type { DeviceRequest } from '../model';
import type { DeviceSlot } from './device-slot';
import { inUse, unslicedBytes } from './device-slot';
import { allowedVendor, DEFAULT_MIN_HEALTH } from './choose-devices';

/** Maxima of one vendor: over all devices, and over devices at or above the default health threshold. */
export interface VendorMax {
  /** Most free whole devices on one node. */
  free: number;
  /** Most unsliced memory on one device. */
  slice: number;
  healthyFree: number;
  healthySlice: number;
  /** Most memory of one free device (an upper bound for memory-per-device asks). */
  freeMemory: number;
}

/** Per vendor, the most free whole devices on one node and the most unsliced memory on one device. */
export type DeviceMax = Map<string, VendorMax>;

/** A node's own device maxima (empty when it has no devices or is not usable). */
export function nodeDeviceMax(slots: readonly DeviceSlot[], usable: boolean): DeviceMax {
  const max: DeviceMax = new Map();
  if (!usable) return max;
  for (const slot of slots) {
    let entry = max.get(slot.view.vendor);
    if (!entry)
      max.set(
        slot.view.vendor,
        (entry = { free: 0, slice: 0, healthyFree: 0, healthySlice: 0, freeMemory: 0 }),
      );
    const free = inUse(slot) ? 0 : 1;
    const slice = unslicedBytes(slot);
    entry.free += free;
    entry.slice = Math.max(entry.slice, slice);
    if (free) entry.freeMemory = Math.max(entry.freeMemory, slot.view.memoryBytes);
    if (slot.view.health < DEFAULT_MIN_HEALTH) continue;
    entry.healthyFree += free;
    entry.healthySlice = Math.max(entry.healthySlice, slice);
  }
  return max;
}

/** Folds `from` into `into`, keeping the larger value per vendor and figure. */
export function mergeDeviceMax(into: DeviceMax, from: DeviceMax): void {
  for (const [vendor, m] of from) {
    const entry = into.get(vendor);
    if (!entry) into.set(vendor, { ...m });
    else {
      entry.free = Math.max(entry.free, m.free);
      entry.slice = Math.max(entry.slice, m.slice);
      entry.healthyFree = Math.max(entry.healthyFree, m.healthyFree);
      entry.healthySlice = Math.max(entry.healthySlice, m.healthySlice);
      entry.freeMemory = Math.max(entry.freeMemory, m.freeMemory);
    }
  }
}

/**
 * Whether maxima of a subtree leave room for the request: enough free devices (or slice memory) of an allowed
 * vendor, counting only healthy devices when the request's threshold is at least the default one.
 */
export function deviceMaxFits(max: DeviceMax, request: DeviceRequest): boolean {
  const healthyOnly = (request.minHealth ?? DEFAULT_MIN_HEALTH) >= DEFAULT_MIN_HEALTH;
  for (const [vendor, m] of max) {
    if (!allowedVendor(request, vendor)) continue;
    const free = healthyOnly ? m.healthyFree : m.free;
    const slice = healthyOnly ? m.healthySlice : m.slice;
    const fits =
      request.sliceMemoryBytes !== undefined
        ? slice >= request.sliceMemoryBytes
        : free >= request.count && m.freeMemory >= (request.memoryPerDeviceBytes ?? 0);
    if (fits) return true;
  }
  return false;
}
