import {
  AcceleratorDevice,
  DEFAULT_EXCHANGE_RATES,
  ExchangeRates,
  computeUnits,
  interconnectIslands,
} from '@hcn/contracts';
import { NodeState, deviceHoldings, knownDeviceHealth } from '@hcn/domain';
import type { DeviceView } from '@hcn/scheduling';

const ISLAND_LINKS = new Set(['nvlink', 'hccs']);

/** Slowest direct NVLink/HCCS link between members of one island, in GB/s (0 for a device alone). */
function islandBandwidth(members: readonly AcceleratorDevice[]): number {
  const inIsland = new Set(members.map((d) => d.index));
  let slowest = Infinity;
  for (const device of members) {
    for (const link of device.interconnect) {
      if (ISLAND_LINKS.has(link.kind) && inIsland.has(link.peer))
        slowest = Math.min(slowest, link.bandwidthGBps);
    }
  }
  return Number.isFinite(slowest) ? slowest : 0;
}

/** What is held on each device, keyed `vendor/index`. */
export type DeviceHoldings = ReadonlyMap<string, { readonly whole: boolean; readonly slicedBytes: number }>;

/**
 * A node's devices as the scheduler sees them: islands per vendor from the NVLink/HCCS links, compute units by
 * the exchange-rate table, and what the node stream says is held on each. Undefined for a node without devices.
 */
export function deviceViewsOf(
  state: NodeState,
  rates: ExchangeRates = DEFAULT_EXCHANGE_RATES,
): DeviceView[] | undefined {
  const registered = state.registration?.devices ?? [];
  if (registered.length === 0) return undefined;
  const devices = registered.map((d) => ({
    ...d,
    health: knownDeviceHealth(state, d.vendor, d.index) ?? d.health,
  }));
  return deviceViewsFrom(devices, deviceHoldings(state), rates);
}

/** Scheduler views of registered devices with what is held on them (the fleet benchmark builds them too). */
export function deviceViewsFrom(
  devices: readonly AcceleratorDevice[],
  held: DeviceHoldings,
  rates: ExchangeRates = DEFAULT_EXCHANGE_RATES,
): DeviceView[] {
  const views: DeviceView[] = [];
  for (const vendor of [...new Set(devices.map((d) => d.vendor))].sort()) {
    const mine = devices.filter((d) => d.vendor === vendor);
    for (const island of interconnectIslands(mine)) {
      const members = mine.filter((d) => island.includes(d.index));
      const bandwidth = islandBandwidth(members);
      for (const d of members) {
        const h = held.get(`${d.vendor}/${d.index}`);
        views.push({
          index: d.index,
          vendor: d.vendor,
          model: d.model,
          memoryBytes: d.memoryBytes ?? 0,
          tflopsFp16: d.tflopsFp16 ?? 0,
          health: d.health,
          island: island[0],
          islandBandwidthGBps: bandwidth,
          computeUnits: computeUnits(d, rates) ?? 0,
          wholeHeld: h?.whole ?? false,
          slicedBytes: h?.slicedBytes ?? 0,
        });
      }
    }
  }
  return views.sort((a, b) => a.index - b.index || (a.vendor < b.vendor ? -1 : 1));
}
