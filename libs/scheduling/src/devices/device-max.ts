import type { DeviceRequest } from '../model';
import type { DeviceSlot } from './device-slot';
import { inUse, unslicedBytes } from './device-slot';
import { allowedVendor } from './choose-devices';

/** Per vendor, the most free whole devices on one node and the most unsliced memory on one device. */
export type DeviceMax = Map<string, { free: number; slice: number }>;

/** A node's own device maxima (empty when it has no devices or is not usable). */
export function nodeDeviceMax(slots: readonly DeviceSlot[], usable: boolean): DeviceMax {
  const max: DeviceMax = new Map();
  if (!usable) return max;
  for (const slot of slots) {
    const entry = max.get(slot.view.vendor) ?? { free: 0, slice: 0 };
    if (!inUse(slot)) entry.free++;
    entry.slice = Math.max(entry.slice, unslicedBytes(slot));
    max.set(slot.view.vendor, entry);
  }
  return max;
}

/** Folds `from` into `into`, keeping the larger value per vendor. */
export function mergeDeviceMax(into: DeviceMax, from: DeviceMax): void {
  for (const [vendor, m] of from) {
    const entry = into.get(vendor);
    if (!entry) into.set(vendor, { ...m });
    else {
      entry.free = Math.max(entry.free, m.free);
      entry.slice = Math.max(entry.slice, m.slice);
    }
  }
}

/** Whether maxima of a subtree leave room for the request: enough free devices (or slice memory) of an allowed vendor. */
export function deviceMaxFits(max: DeviceMax, request: DeviceRequest): boolean {
  for (const [vendor, m] of max) {
    if (!allowedVendor(request, vendor)) continue;
    if (
      request.sliceMemoryBytes !== undefined ? m.slice >= request.sliceMemoryBytes : m.free >= request.count
    )
      return true;
  }
  return false;
}
