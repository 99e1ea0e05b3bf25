import type { DeviceGrant, DeviceRequest, NodeView, PlacementRequest, Resources } from '@hcn/scheduling';
import { deviceViewsFrom } from '@hcn/cluster';
import { simulatedDevices } from './heterogeneous-fleet';
import { constraintsOf, decide, mulberry32, SchedulingIndex } from '@hcn/scheduling';
import { loadavg } from 'node:os';
import { buildSnapshot, measure, Placer } from './scheduler.bench';
import { report } from './support';

const SIZES = (process.env.BENCH_DEVICES_SIZES ?? '1000,10000').split(',').map(Number);
const DECISIONS = Number(process.env.BENCH_DEVICES_DECISIONS ?? 5000);
const WARMUP = Number(process.env.BENCH_SCHED_WARMUP ?? 1000);
const TARGET_P99_MS = 2;
const TARGET_NODES = 10_000;
const GiB = 2 ** 30;

/** One node of the heterogeneous fleet: 64 cores, 512 GiB, its devices a third held whole, some NVIDIA ones sliced. */
export function deviceNode(nodeId: string, domainId: string, rnd: () => number): NodeView {
  const registered = simulatedDevices(rnd);
  const held = new Map<string, { whole: boolean; slicedBytes: number }>();
  for (const d of registered) {
    const whole = rnd() < 0.3;
    const sliced = !whole && d.vendor === 'nvidia' && rnd() < 0.2 ? Math.floor(rnd() * 40) * GiB : 0;
    if (whole || sliced > 0) held.set(`${d.vendor}/${d.index}`, { whole, slicedBytes: sliced });
  }
  const devices = deviceViewsFrom(registered, held);
  const whole = devices.filter((d) => d.wholeHeld).length;
  return {
    nodeId,
    domainId,
    labels: { zone: `z${Math.floor(rnd() * 3)}` },
    online: rnd() > 0.02,
    draining: false,
    capacity: { cpuMillis: 64_000, memoryBytes: 512 * GiB, accelerators: devices.length },
    allocated: { cpuMillis: 8_000, memoryBytes: 32 * GiB, accelerators: whole },
    ...(devices.length > 0 ? { devices } : {}),
  };
}

/** The request mix: single devices, islands of 2–4, whole 8-GPU boxes, compute-unit asks, NVIDIA slices. */
export function deviceRequests(count: number): PlacementRequest[] {
  const rnd = mulberry32(0xdec1de);
  return Array.from({ length: count }, (_, i) => {
    const kind = rnd();
    let devices: DeviceRequest;
    if (kind < 0.35) devices = { count: 1, memoryPerDeviceBytes: (16 + Math.floor(rnd() * 48)) * GiB };
    else if (kind < 0.55)
      devices = {
        count: 2 + Math.floor(rnd() * 3),
        topology: 'same-island',
        vendors: { allow: ['nvidia', 'ascend'] },
      };
    else if (kind < 0.65) devices = { count: 8, vendors: { allow: ['nvidia'] } };
    else if (kind < 0.8)
      devices = { count: 2 + Math.floor(rnd() * 3), computeUnits: 1.5, preferVendors: ['nvidia', 'ascend'] };
    else
      devices = {
        count: 1,
        sliceMemoryBytes: (5 + Math.floor(rnd() * 16)) * GiB,
        vendors: { allow: ['nvidia'] },
      };
    const accelerators = devices.sliceMemoryBytes === undefined ? devices.count : 0;
    const resources: Resources = { cpuMillis: 2000, memoryBytes: 8 * GiB, accelerators };
    return { workloadId: `dev-${i}`, instance: 0, resources, constraints: constraintsOf(), devices };
  });
}

/** decide + reserve with the chosen device grants; releases give the same grants back, first in first out. */
function devicePlacer(index: SchedulingIndex): Placer & { placedDevices: number } {
  const grants: DeviceGrant[][] = [];
  const placer = {
    placedDevices: 0,
    place(request: PlacementRequest) {
      const decision = decide(index, request);
      if (decision.outcome !== 'placed') return undefined;
      const held = [...(decision.devices?.grants ?? [])];
      index.reserve(decision.nodeId, request.resources, held);
      grants.push(held);
      placer.placedDevices += held.length;
      return decision.nodeId;
    },
    release(nodeId: string, resources: Resources) {
      index.release(nodeId, resources, grants.shift() ?? []);
    },
    warm: () => void (placer.placedDevices = 0),
  };
  return placer;
}

async function one(nodeCount: number) {
  const snapshot = buildSnapshot(nodeCount, deviceNode);
  const requests = deviceRequests(WARMUP + DECISIONS);
  const countOnly = requests.map(({ devices: _devices, ...rest }) => rest);
  const devicesTotal = snapshot.nodes.reduce((n, node) => n + (node.devices?.length ?? 0), 0);
  console.log(`[bench] ${nodeCount} nodes, ${devicesTotal} devices`);
  const baseline = measure(
    `count-only ${nodeCount}`,
    devicePlacer(SchedulingIndex.fromSnapshot(snapshot)),
    countOnly,
  );
  const placer = devicePlacer(SchedulingIndex.fromSnapshot(snapshot));
  const aware = measure(`device-aware ${nodeCount}`, placer, requests);
  const row = {
    nodes: nodeCount,
    devices: devicesTotal,
    baselineCountOnly: baseline,
    deviceAware: { ...aware, devicesGranted: placer.placedDevices },
    p99Ratio: +(aware.p99Us / baseline.p99Us).toFixed(3),
    throughputRatio: +(aware.decisionsPerSec / baseline.decisionsPerSec).toFixed(3),
  };
  console.log(
    `[bench]   device-aware ${aware.decisionsPerSec}/s p50 ${aware.p50Us}µs p99 ${aware.p99Us}µs (cpu p99 ${aware.cpuP99Us}µs), ` +
      `placed ${aware.placed}/${aware.placed + aware.unschedulable}; count-only p99 ${baseline.p99Us}µs; p99 ratio ${row.p99Ratio}`,
  );
  return row;
}

/** Accelerator-aware decisions over a heterogeneous fleet against count-only decisions on the same fleet. */
export async function run(): Promise<void> {
  const loadBefore = loadavg()[0];
  const rows = [];
  for (const size of SIZES) rows.push(await one(size));
  const atTarget = rows.find((r) => r.nodes === TARGET_NODES);
  report('devices', {
    decisionsPerSize: DECISIONS,
    warmup: WARMUP,
    step: 'decide (device filter + device scorers) + reserve with grants (+ FIFO release beyond the live window)',
    baseline: 'the same requests without their device ask (accelerator count only), same fleet, same run',
    loadAverage: { before: +loadBefore.toFixed(2), after: +loadavg()[0].toFixed(2) },
    sizes: rows,
    target: {
      p99Ms: TARGET_P99_MS,
      atNodes: TARGET_NODES,
      measuredP99Ms: atTarget ? +(atTarget.deviceAware.p99Us / 1000).toFixed(3) : null,
      met: atTarget ? atTarget.deviceAware.p99Us <= TARGET_P99_MS * 1000 : null,
    },
  });
}
