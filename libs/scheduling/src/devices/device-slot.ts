import type { DeviceGrant, DeviceView } from '../model';

/** One device inside a `SchedulingIndex` node: the view plus what is held on it now. */
export interface DeviceSlot {
  readonly view: DeviceView;
  /** Position among the node's slots. */
  readonly pos: number;
  wholeHeld: boolean;
  slicedBytes: number;
}

/** Slots for a node's devices, starting from what the snapshot says is held. */
export function slotsOf(devices: readonly DeviceView[] | undefined): DeviceSlot[] {
  return [...(devices ?? [])]
    .sort((a, b) => a.index - b.index || (a.vendor < b.vendor ? -1 : 1))
    .map((view, pos) => ({ view, pos, wholeHeld: view.wholeHeld, slicedBytes: view.slicedBytes }));
}

/** Applies grants to the slots (sign 1: reserve, -1: release); unknown devices are ignored. */
export function applyGrants(
  slots: readonly DeviceSlot[],
  grants: readonly DeviceGrant[],
  sign: 1 | -1,
): void {
  for (const grant of grants) {
    const slot = slots.find((s) => s.view.index === grant.index && s.view.vendor === grant.vendor);
    if (!slot) continue;
    if (grant.sliceMemoryBytes === undefined) slot.wholeHeld = sign === 1;
    else slot.slicedBytes = Math.max(0, slot.slicedBytes + sign * grant.sliceMemoryBytes);
  }
}

/** Memory of a device not handed out as slices (0 when it is held whole). */
export function unslicedBytes(slot: DeviceSlot): number {
  return slot.wholeHeld ? 0 : Math.max(0, slot.view.memoryBytes - slot.slicedBytes);
}

/** A device someone holds, whole or in part. */
export function inUse(slot: DeviceSlot): boolean {
  return slot.wholeHeld || slot.slicedBytes > 0;
}
