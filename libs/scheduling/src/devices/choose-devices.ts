import type { AllowDeny, DeviceGrant, DeviceRequest } from '../model';
import type { Rejection } from '../plugins/types';
import type { DeviceSlot } from './device-slot';
import { inUse, unslicedBytes } from './device-slot';
import type { DeviceGroup, DeviceLayout } from './device-layout';
import { layoutOf } from './device-layout';

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

/** Allow/deny lists lower-cased once per request. */
interface Lists {
  readonly allow: readonly string[];
  readonly deny: readonly string[];
  /** Answers so far, per value (vendors and models repeat across a fleet). */
  readonly memo: Map<string, boolean>;
}
const compiled = new WeakMap<DeviceRequest, { vendors: Lists; models: Lists }>();

function lower(list: AllowDeny | undefined): Lists {
  return {
    allow: (list?.allow ?? []).map((a) => a.toLowerCase()),
    deny: (list?.deny ?? []).map((d) => d.toLowerCase()),
    memo: new Map(),
  };
}

function listsOf(request: DeviceRequest): { vendors: Lists; models: Lists } {
  let lists = compiled.get(request);
  if (!lists)
    compiled.set(request, (lists = { vendors: lower(request.vendors), models: lower(request.models) }));
  return lists;
}

function allowed(list: Lists, value: string): boolean {
  if (list.allow.length === 0 && list.deny.length === 0) return true;
  let answer = list.memo.get(value);
  if (answer === undefined) {
    const v = value.toLowerCase();
    answer =
      !list.deny.some((d) => v.includes(d)) &&
      (list.allow.length === 0 || list.allow.some((a) => v.includes(a)));
    list.memo.set(value, answer);
  }
  return answer;
}

/** Whether the request's vendor lists let `vendor` through. */
export function allowedVendor(request: DeviceRequest, vendor: string): boolean {
  return allowed(listsOf(request).vendors, vendor);
}

/** The first criterion a device fails for the request, or undefined when it can serve it. */
function exclusion(slot: DeviceSlot, request: DeviceRequest, lists = listsOf(request)): string | undefined {
  const d = slot.view;
  if (!allowed(lists.vendors, d.vendor) || !allowed(lists.models, d.model)) return DEVICE_VENDOR_MODEL;
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
export function chooseDevices(
  slots: readonly DeviceSlot[],
  request: DeviceRequest,
  layout: DeviceLayout = layoutOf(slots),
): DeviceOutcome {
  if (slots.length === 0) return reject(DEVICE_NONE, 'the node has no accelerator devices');
  const lists = listsOf(request);
  const eligible =
    SCRATCH.length >= slots.length ? SCRATCH.fill(0, 0, slots.length) : new Uint8Array(slots.length);
  let eligibleCount = 0;
  for (const slot of slots) {
    if (exclusion(slot, request, lists) !== undefined) continue;
    eligible[slot.pos] = 1;
    eligibleCount++;
  }
  if (request.sliceMemoryBytes !== undefined)
    return chooseSlice(
      slots.filter((s) => eligible[s.pos] === 1),
      slots,
      request,
    );
  return chooseWhole({ flags: eligible, count: eligibleCount }, slots, layout, request);
}

/** Reused eligibility flags (one decision at a time; callers never keep them). */
const SCRATCH = new Uint8Array(1024);

/** Which slots (by position) passed every criterion, and how many. */
interface Eligible {
  readonly flags: Uint8Array;
  readonly count: number;
}

/** How many devices each criterion excluded (computed only to explain a rejection). */
function exclusions(slots: readonly DeviceSlot[], request: DeviceRequest): Map<string, number> {
  const excluded = new Map<string, number>();
  for (const slot of slots) {
    const why = exclusion(slot, request);
    if (why) excluded.set(why, (excluded.get(why) ?? 0) + 1);
  }
  return excluded;
}

function chooseSlice(
  eligible: DeviceSlot[],
  all: readonly DeviceSlot[],
  request: DeviceRequest,
): DeviceOutcome {
  const slice = request.sliceMemoryBytes!;
  const best = eligible.reduce<DeviceSlot | undefined>((b, s) => {
    if (!b) return s;
    const [rs, rb] = [unslicedBytes(s) - slice, unslicedBytes(b) - slice];
    if (rs !== rb) return rs < rb ? s : b;
    return preferenceRank(request, s.view.vendor) < preferenceRank(request, b.view.vendor) ? s : b;
  }, undefined);
  if (!best) return rejectFromExclusions(all, request);
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

function chooseWhole(
  eligible: Eligible,
  all: readonly DeviceSlot[],
  layout: DeviceLayout,
  request: DeviceRequest,
): DeviceOutcome {
  const count = request.count;
  if (eligible.count < count) return rejectFromExclusions(all, request, eligible.count);
  const needUnits = request.computeUnits ?? 0;
  const candidate = emptyRanked();
  let best: Ranked | undefined;
  let sizable = false;
  let mostUnits = 0;
  const groups = request.topology === 'same-island' ? [layout.islands] : [layout.islands, layout.spanning];
  for (const list of groups) {
    for (const group of list) {
      if (!rankInto(candidate, group, eligible, count)) continue;
      sizable = true;
      if (candidate.units > mostUnits) mostUnits = candidate.units;
      if (candidate.units < needUnits) continue;
      if (best === undefined) best = { ...candidate };
      else if (ranksBefore(candidate, best, request)) Object.assign(best, candidate);
    }
  }
  if (best) return { choice: wholeChoice(best, eligible, count, all) };
  if (sizable)
    return reject(
      DEVICE_COMPUTE_UNITS,
      `need ${needUnits} compute units, best free set gives ${round(mostUnits)}`,
    );
  if (layout.spanning.length > 0 || layout.islands.length > 0) {
    const perVendor = new Map<string, number>();
    for (const slot of all)
      if (eligible.flags[slot.pos] === 1)
        perVendor.set(slot.view.vendor, (perVendor.get(slot.view.vendor) ?? 0) + 1);
    if ([...perVendor.values()].some((n) => n >= count))
      return reject(DEVICE_TOPOLOGY, `no NVLink/HCCS island has ${count} free matching devices`);
  }
  return rejectFromExclusions(all, request, eligible.count);
}

/** A group whose first `count` eligible devices can serve, with the sums the ranking reads. */
interface Ranked {
  group: DeviceGroup;
  units: number;
  meanHealth: number;
  /** Some device of the island is already held (spanning groups: false). */
  inUse: boolean;
  /** Index of the first chosen device (the last tie-break). */
  first: number;
}

function emptyRanked(): Ranked {
  return {
    group: { vendor: '', island: -1, bandwidthGBps: 0, slots: [] },
    units: 0,
    meanHealth: 0,
    inUse: false,
    first: -1,
  };
}

/** Fills `into` with the group's first `count` eligible devices' sums; false when the group has too few. */
function rankInto(into: Ranked, group: DeviceGroup, eligible: Eligible, count: number): boolean {
  let taken = 0;
  let units = 0;
  let health = 0;
  let used = false;
  let first = -1;
  for (const slot of group.slots) {
    if (inUse(slot)) used = true;
    if (taken < count && eligible.flags[slot.pos] === 1) {
      if (taken++ === 0) first = slot.view.index;
      units += slot.view.computeUnits;
      health += slot.view.health;
    }
  }
  if (taken < count) return false;
  into.group = group;
  into.units = units;
  into.meanHealth = health / count;
  into.inUse = group.island >= 0 && used;
  into.first = first;
  return true;
}

/** The winning devices as a choice. */
function wholeChoice(
  best: Ranked,
  eligible: Eligible,
  count: number,
  all: readonly DeviceSlot[],
): DeviceChoice {
  const group = best.group;
  const chosen = group.slots.filter((s) => eligible.flags[s.pos] === 1).slice(0, count);
  const single = chosen.length === 1;
  let used = 0;
  for (const slot of all) if (inUse(slot)) used++;
  return {
    vendor: group.vendor,
    indexes: chosen.map((s) => s.view.index),
    oneIsland: group.island >= 0 || single,
    bandwidthGBps: single ? chosen[0].view.islandBandwidthGBps : group.bandwidthGBps,
    computeUnits: best.units,
    meanHealth: best.meanHealth,
    grants: chosen.map((s) => ({ index: s.view.index, vendor: s.view.vendor })),
    fill: all.length > 0 ? used / all.length : 0,
  };
}

function ranksBefore(x: Ranked, y: Ranked, request: DeviceRequest): boolean {
  const a = x.group;
  const b = y.group;
  const oneA = a.island >= 0 || request.count === 1;
  const oneB = b.island >= 0 || request.count === 1;
  if (oneA !== oneB) return oneA;
  if (a.bandwidthGBps !== b.bandwidthGBps) return a.bandwidthGBps > b.bandwidthGBps;
  if (x.inUse !== y.inUse) return x.inUse;
  const rankA = preferenceRank(request, a.vendor);
  const rankB = preferenceRank(request, b.vendor);
  if (rankA !== rankB) return rankA < rankB;
  if (x.meanHealth !== y.meanHealth) return x.meanHealth > y.meanHealth;
  return a.vendor < b.vendor || (a.vendor === b.vendor && x.first < y.first);
}

/** Position of a vendor in the preference list (the list's length when absent). */
export function preferenceRank(request: DeviceRequest, vendor: string): number {
  const list = request.preferVendors ?? [];
  const at = list.indexOf(vendor);
  return at < 0 ? list.length : at;
}

function rejectFromExclusions(
  all: readonly DeviceSlot[],
  request: DeviceRequest,
  eligible = 0,
): DeviceOutcome {
  const excluded = exclusions(all, request);
  const total = all.length;
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
