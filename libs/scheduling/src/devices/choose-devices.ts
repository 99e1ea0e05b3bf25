import type { AllowDeny, DeviceGrant, DeviceRequest } from '../model';
import type { Rejection } from '../plugins/types';
import type { DeviceSlot } from './device-slot';
import { inUse, unslicedBytes } from './device-slot';

/** The node has no accelerator devices. */
export const DEVICE_NONE = 'FILTER.DEVICE_NONE';
/** No device of an allowed vendor and model. */
export const DEVICE_VENDOR_MODEL = 'FILTER.DEVICE_VENDOR_MODEL';
/** The matching devices are below the health threshold. */
export const DEVICE_UNHEALTHY = 'FILTER.DEVICE_UNHEALTHY';
/** The matching devices have less memory than asked per device (or for the slice). */
export const DEVICE_MEMORY = 'FILTER.DEVICE_MEMORY';
/** The matching devices are slower than asked. */
export const DEVICE_TFLOPS = 'FILTER.DEVICE_TFLOPS';
/** Enough matching devices exist but too few are free. */
export const DEVICE_BUSY = 'FILTER.DEVICE_BUSY';
/** Enough free devices, but not in one NVLink/HCCS island. */
export const DEVICE_TOPOLOGY = 'FILTER.DEVICE_TOPOLOGY';
/** The free devices add up to fewer normalized compute units than asked. */
export const DEVICE_COMPUTE_UNITS = 'FILTER.DEVICE_COMPUTE_UNITS';
/** Memory slices are enforced only where the memory guard works (CUDA devices). */
export const DEVICE_SLICE_UNSUPPORTED = 'FILTER.DEVICE_SLICE_UNSUPPORTED';

/** Every reason `chooseDevices` can give. */
export const DEVICE_REASONS = [
  DEVICE_NONE,
  DEVICE_VENDOR_MODEL,
  DEVICE_UNHEALTHY,
  DEVICE_MEMORY,
  DEVICE_TFLOPS,
  DEVICE_BUSY,
  DEVICE_TOPOLOGY,
  DEVICE_COMPUTE_UNITS,
  DEVICE_SLICE_UNSUPPORTED,
] as const;

/** Vendors whose devices can be sliced (the memory guard hooks CUDA). */
export const SLICEABLE_VENDORS: readonly string[] = ['nvidia'];
/** Default health threshold: devices below it are excluded. */
export const DEFAULT_MIN_HEALTH = 50;

/** The devices picked on one node, with what the device scorers read. */
export interface DeviceChoice {
  readonly vendor: string;
  /** Device indexes, ascending. */
  readonly indexes: readonly number[];
  readonly sliceMemoryBytes?: number;
  /** All chosen devices are in one island (always true for one device). */
  readonly oneIsland: boolean;
  /** Slowest link of that island in GB/s (0 when spanning islands or alone). */
  readonly bandwidthGBps: number;
  readonly computeUnits: number;
  readonly meanHealth: number;
  /** The chosen devices as reservation grants. */
  readonly grants: readonly DeviceGrant[];
  /** Share (0–1) of the node's devices in use before this choice; for a slice, the device's fill after it. */
  readonly fill: number;
}

/** Either a choice or why the node cannot serve the request. */
export type DeviceOutcome = { readonly choice: DeviceChoice } | { readonly rejection: Rejection };

const byIndex = (a: DeviceSlot, b: DeviceSlot) => a.view.index - b.view.index;

function allowed(list: AllowDeny | undefined, value: string): boolean {
  const v = value.toLowerCase();
  if (list?.deny?.some((d) => v.includes(d.toLowerCase()))) return false;
  return !list?.allow?.length || list.allow.some((a) => v.includes(a.toLowerCase()));
}

/** The first criterion a device fails for the request, or undefined when it can serve it. */
function exclusion(slot: DeviceSlot, request: DeviceRequest): string | undefined {
  const d = slot.view;
  if (!allowed(request.vendors, d.vendor) || !allowed(request.models, d.model)) return DEVICE_VENDOR_MODEL;
  if (request.sliceMemoryBytes !== undefined && !SLICEABLE_VENDORS.includes(d.vendor))
    return DEVICE_SLICE_UNSUPPORTED;
  if (d.health < (request.minHealth ?? DEFAULT_MIN_HEALTH)) return DEVICE_UNHEALTHY;
  const perDevice = request.sliceMemoryBytes ?? request.memoryPerDeviceBytes ?? 0;
  if (d.memoryBytes < perDevice) return DEVICE_MEMORY;
  if (d.tflopsFp16 < (request.tflopsFp16PerDevice ?? 0)) return DEVICE_TFLOPS;
  if (request.sliceMemoryBytes === undefined ? inUse(slot) : unslicedBytes(slot) < perDevice)
    return DEVICE_BUSY;
  return undefined;
}

/**
 * Picks devices on one node for a request, deterministically: whole devices of one vendor, preferring one
 * island (required with `same-island`), the fastest island, then islands already in use (keeping empty ones
 * whole), then the preferred vendor, then health; a slice goes to the fullest device it still fits (best fit).
 */
export function chooseDevices(slots: readonly DeviceSlot[], request: DeviceRequest): DeviceOutcome {
  if (slots.length === 0) return reject(DEVICE_NONE, 'the node has no accelerator devices');
  const excluded = new Map<string, number>();
  const eligible: DeviceSlot[] = [];
  for (const slot of slots) {
    const why = exclusion(slot, request);
    if (why) excluded.set(why, (excluded.get(why) ?? 0) + 1);
    else eligible.push(slot);
  }
  eligible.sort(byIndex);
  if (request.sliceMemoryBytes !== undefined) return chooseSlice(eligible, slots, excluded, request);
  return chooseWhole(eligible, slots, excluded, request);
}

function chooseSlice(
  eligible: DeviceSlot[],
  all: readonly DeviceSlot[],
  excluded: Map<string, number>,
  request: DeviceRequest,
): DeviceOutcome {
  const slice = request.sliceMemoryBytes!;
  const best = eligible.reduce<DeviceSlot | undefined>((b, s) => {
    if (!b) return s;
    const [rs, rb] = [unslicedBytes(s) - slice, unslicedBytes(b) - slice];
    if (rs !== rb) return rs < rb ? s : b;
    return preferenceRank(request, s.view.vendor) < preferenceRank(request, b.view.vendor) ? s : b;
  }, undefined);
  if (!best) return rejectFromExclusions(excluded, all.length, request);
  const v = best.view;
  return {
    choice: {
      vendor: v.vendor,
      indexes: [v.index],
      sliceMemoryBytes: slice,
      oneIsland: true,
      bandwidthGBps: v.islandBandwidthGBps,
      computeUnits: v.memoryBytes > 0 ? (v.computeUnits * slice) / v.memoryBytes : 0,
      meanHealth: v.health,
      grants: [{ index: v.index, vendor: v.vendor, sliceMemoryBytes: slice }],
      fill: v.memoryBytes > 0 ? Math.min(1, (best.slicedBytes + slice) / v.memoryBytes) : 1,
    },
  };
}

interface Group {
  readonly vendor: string;
  readonly members: DeviceSlot[];
  readonly oneIsland: boolean;
  readonly bandwidthGBps: number;
  readonly islandInUse: boolean;
}

function chooseWhole(
  eligible: DeviceSlot[],
  all: readonly DeviceSlot[],
  excluded: Map<string, number>,
  request: DeviceRequest,
): DeviceOutcome {
  const count = request.count;
  const groups = candidateGroups(eligible, all, request).filter((g) => g.members.length >= count);
  if (groups.length === 0) {
    const sameVendorEnough = new Set(eligible.map((s) => s.view.vendor));
    const anyVendorEnough = [...sameVendorEnough].some(
      (v) => eligible.filter((s) => s.view.vendor === v).length >= count,
    );
    if (anyVendorEnough)
      return reject(DEVICE_TOPOLOGY, `no NVLink/HCCS island has ${count} free matching devices`);
    return rejectFromExclusions(excluded, all.length, request, eligible.length);
  }
  const picks = groups.map((g) => pick(g, count));
  const enough = picks.filter((p) => p.computeUnits >= (request.computeUnits ?? 0));
  if (enough.length === 0) {
    const most = Math.max(...picks.map((p) => p.computeUnits));
    return reject(
      DEVICE_COMPUTE_UNITS,
      `need ${request.computeUnits} compute units, best free set gives ${round(most)}`,
    );
  }
  const used = all.filter(inUse).length;
  const { islandInUse: _inUse, ...best } = enough.reduce((a, b) => (ranksBefore(b, a, request) ? b : a));
  return { choice: { ...best, fill: all.length > 0 ? used / all.length : 0 } };
}

/** Groups of one vendor: each island alone, plus (unless one island is required) all of the vendor's devices. */
function candidateGroups(
  eligible: DeviceSlot[],
  all: readonly DeviceSlot[],
  request: DeviceRequest,
): Group[] {
  const groups: Group[] = [];
  const vendors = [...new Set(eligible.map((s) => s.view.vendor))].sort();
  for (const vendor of vendors) {
    const mine = eligible.filter((s) => s.view.vendor === vendor);
    const islands = [...new Set(mine.map((s) => s.view.island))];
    for (const island of islands) {
      const members = mine.filter((s) => s.view.island === island);
      const islandInUse = all.some((s) => s.view.vendor === vendor && s.view.island === island && inUse(s));
      groups.push({
        vendor,
        members,
        oneIsland: true,
        bandwidthGBps: members[0].view.islandBandwidthGBps,
        islandInUse,
      });
    }
    if (request.topology !== 'same-island' && islands.length > 1)
      groups.push({ vendor, members: mine, oneIsland: false, bandwidthGBps: 0, islandInUse: false });
  }
  return groups;
}

type Pick = Omit<DeviceChoice, 'fill'> & { readonly islandInUse: boolean };

function pick(group: Group, count: number): Pick {
  const chosen = group.members.slice(0, count);
  const single = count === 1;
  return {
    vendor: group.vendor,
    indexes: chosen.map((s) => s.view.index),
    oneIsland: group.oneIsland || single,
    bandwidthGBps: single ? chosen[0].view.islandBandwidthGBps : group.bandwidthGBps,
    computeUnits: chosen.reduce((sum, s) => sum + s.view.computeUnits, 0),
    meanHealth: chosen.reduce((sum, s) => sum + s.view.health, 0) / chosen.length,
    grants: chosen.map((s) => ({ index: s.view.index, vendor: s.view.vendor })),
    islandInUse: group.islandInUse,
  };
}

function ranksBefore(a: Pick, b: Pick, request: DeviceRequest): boolean {
  if (a.oneIsland !== b.oneIsland) return a.oneIsland;
  if (a.bandwidthGBps !== b.bandwidthGBps) return a.bandwidthGBps > b.bandwidthGBps;
  if (a.islandInUse !== b.islandInUse) return a.islandInUse;
  const [ra, rb] = [preferenceRank(request, a.vendor), preferenceRank(request, b.vendor)];
  if (ra !== rb) return ra < rb;
  if (a.meanHealth !== b.meanHealth) return a.meanHealth > b.meanHealth;
  return a.vendor < b.vendor || (a.vendor === b.vendor && a.indexes[0] < b.indexes[0]);
}

/** Position of a vendor in the preference list (the list's length when absent). */
export function preferenceRank(request: DeviceRequest, vendor: string): number {
  const list = request.preferVendors ?? [];
  const at = list.indexOf(vendor);
  return at < 0 ? list.length : at;
}

function rejectFromExclusions(
  excluded: Map<string, number>,
  total: number,
  request: DeviceRequest,
  eligible = 0,
): DeviceOutcome {
  const [reason, n] = [...excluded].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0] ?? [
    DEVICE_BUSY,
    0,
  ];
  const want =
    request.sliceMemoryBytes !== undefined
      ? `a ${request.sliceMemoryBytes}-byte slice`
      : `${request.count} device(s)`;
  return reject(reason, `need ${want}; ${eligible} of ${total} devices qualify (${n} excluded: ${reason})`);
}

function reject(reason: string, detail: string): DeviceOutcome {
  return { rejection: { reason, detail } };
}

function round(n: number): number {
  return Math.round(n * 1000) / 1000;
}
