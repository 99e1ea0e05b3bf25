import type { DeviceSlot } from './device-slot';

/** Devices of one vendor that can be handed out together: one island, or all of the vendor's devices. */
export interface DeviceGroup {
  readonly vendor: string;
  /** Island id, or -1 for the group spanning all of the vendor's islands. */
  readonly island: number;
  readonly bandwidthGBps: number;
  /** Members in index order. */
  readonly slots: readonly DeviceSlot[];
}

/** A node's devices grouped once (islands never change): the islands, then per vendor with several islands, all. */
export interface DeviceLayout {
  readonly islands: readonly DeviceGroup[];
  readonly spanning: readonly DeviceGroup[];
}

/** Groups a node's slots (in index order) by vendor and island. */
export function layoutOf(slots: readonly DeviceSlot[]): DeviceLayout {
  const islands = new Map<
    string,
    { vendor: string; island: number; bandwidthGBps: number; slots: DeviceSlot[] }
  >();
  const byVendor = new Map<string, { slots: DeviceSlot[]; islands: Set<number> }>();
  for (const slot of slots) {
    const { vendor, island, islandBandwidthGBps } = slot.view;
    const key = `${vendor}\u0000${island}`;
    const group = islands.get(key) ?? { vendor, island, bandwidthGBps: islandBandwidthGBps, slots: [] };
    group.slots.push(slot);
    islands.set(key, group);
    const v = byVendor.get(vendor) ?? { slots: [], islands: new Set<number>() };
    v.slots.push(slot);
    v.islands.add(island);
    byVendor.set(vendor, v);
  }
  const spanning = [...byVendor]
    .filter(([, v]) => v.islands.size > 1)
    .map(([vendor, v]) => ({ vendor, island: -1, bandwidthGBps: 0, slots: v.slots }));
  return { islands: [...islands.values()], spanning };
}
