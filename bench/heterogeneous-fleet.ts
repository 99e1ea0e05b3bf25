import type { AcceleratorDevice, AcceleratorVendor, InterconnectLink } from '@hcn/contracts';

const GiB = 2 ** 30;

/** A node type of the simulated fleet: its devices (model, memory, TFLOPS), island size and link, and its share. */
interface NodeType {
  readonly vendor?: AcceleratorVendor;
  readonly model: string;
  readonly memoryGiB: number;
  readonly tflops: number;
  readonly count: number;
  /** Devices per NVLink/HCCS island (1: PCIe only). */
  readonly island: number;
  readonly link?: Omit<InterconnectLink, 'peer'>;
  readonly weight: number;
}

/**
 * The heterogeneous fleet of the benchmarks: NVIDIA A100 boxes with two NV12 islands of 4, A800 boxes with one
 * island of 8, Ascend 910B with two HCCS islands of 4, Hygon DCU and Cambricon MLU on PCIe, and CPU-only nodes.
 */
export const NODE_TYPES: readonly NodeType[] = [
  {
    vendor: 'nvidia',
    model: 'NVIDIA A100-SXM4-80GB',
    memoryGiB: 80,
    tflops: 312,
    count: 8,
    island: 4,
    link: { kind: 'nvlink', bandwidthGBps: 300 },
    weight: 20,
  },
  {
    vendor: 'nvidia',
    model: 'NVIDIA A800-SXM4-80GB',
    memoryGiB: 80,
    tflops: 312,
    count: 8,
    island: 8,
    link: { kind: 'nvlink', bandwidthGBps: 200 },
    weight: 15,
  },
  {
    vendor: 'ascend',
    model: 'Ascend 910B',
    memoryGiB: 64,
    tflops: 320,
    count: 8,
    island: 4,
    link: { kind: 'hccs', bandwidthGBps: 56 },
    weight: 20,
  },
  { vendor: 'hygon', model: 'DCU Z100', memoryGiB: 32, tflops: 45, count: 8, island: 1, weight: 15 },
  { vendor: 'cambricon', model: 'MLU370-X8', memoryGiB: 48, tflops: 96, count: 4, island: 1, weight: 10 },
  { model: 'cpu-only', memoryGiB: 0, tflops: 0, count: 0, island: 1, weight: 20 },
];

function pickType(rnd: () => number): NodeType {
  let x = rnd() * NODE_TYPES.reduce((s, t) => s + t.weight, 0);
  for (const type of NODE_TYPES) if ((x -= type.weight) < 0) return type;
  return NODE_TYPES[NODE_TYPES.length - 1];
}

/** The devices of one simulated node (as an agent would register them); 2 % of devices are unhealthy. */
export function simulatedDevices(rnd: () => number): AcceleratorDevice[] {
  const type = pickType(rnd);
  if (!type.vendor) return [];
  const vendor = type.vendor;
  return Array.from({ length: type.count }, (_, index) => {
    const first = index - (index % type.island);
    const peers = Array.from({ length: type.island }, (_, k) => first + k).filter((p) => p !== index);
    return {
      index,
      vendor,
      model: type.model,
      memoryBytes: type.memoryGiB * GiB,
      tflopsFp16: type.tflops,
      numaNode: index < type.count / 2 ? 0 : 1,
      health: rnd() < 0.02 ? 30 : 60 + Math.floor(rnd() * 41),
      interconnect: type.link ? peers.map((peer) => ({ ...type.link!, peer })) : [],
    };
  });
}
