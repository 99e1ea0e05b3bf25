import type { AcceleratorDevice, AcceleratorVendor, PlacedDevices } from '@hcn/contracts';

/** What the agent adds to a process (and would hand a container runtime) for the devices of one placement. */
export interface DeviceRuntime {
  readonly env: Record<string, string>;
  /** Device nodes a container would need. */
  readonly deviceNodes: string[];
  /** Host paths (driver libraries, tools) a container would mount read-only. */
  readonly mounts: string[];
}

/** Per vendor: the visible-devices variables, device nodes and driver mounts. */
interface VendorRuntime {
  readonly visible: readonly string[];
  /** Use uuids in the visible list when every chosen device has one (NVIDIA accepts both). */
  readonly byUuid: boolean;
  nodes(indexes: readonly number[]): string[];
  readonly mounts: readonly string[];
  /** Variables set when several devices share no fast island. */
  readonly noIsland: Readonly<Record<string, string>>;
}

const VENDOR_RUNTIME: Record<AcceleratorVendor, VendorRuntime> = {
  nvidia: {
    visible: ['CUDA_VISIBLE_DEVICES', 'NVIDIA_VISIBLE_DEVICES'],
    byUuid: true,
    nodes: (ix) => [
      ...ix.map((i) => `/dev/nvidia${i}`),
      '/dev/nvidiactl',
      '/dev/nvidia-uvm',
      '/dev/nvidia-uvm-tools',
    ],
    mounts: [
      '/usr/lib/x86_64-linux-gnu/libcuda.so.1',
      '/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1',
      '/usr/bin/nvidia-smi',
    ],
    noIsland: { NCCL_P2P_DISABLE: '1' },
  },
  ascend: {
    visible: ['ASCEND_RT_VISIBLE_DEVICES', 'ASCEND_VISIBLE_DEVICES'],
    byUuid: false,
    nodes: (ix) => [
      ...ix.map((i) => `/dev/davinci${i}`),
      '/dev/davinci_manager',
      '/dev/devmm_svm',
      '/dev/hisi_hdc',
    ],
    mounts: ['/usr/local/Ascend/driver', '/usr/local/bin/npu-smi'],
    noIsland: { HCCL_INTRA_PCIE_ENABLE: '1', HCCL_INTRA_ROCE_ENABLE: '0' },
  },
  hygon: {
    visible: ['HIP_VISIBLE_DEVICES'],
    byUuid: false,
    nodes: (ix) => ['/dev/kfd', ...ix.map((i) => `/dev/dri/renderD${128 + i}`)],
    mounts: ['/opt/hyhal'],
    noIsland: {},
  },
  cambricon: {
    visible: ['MLU_VISIBLE_DEVICES'],
    byUuid: false,
    nodes: (ix) => [...ix.map((i) => `/dev/cambricon_dev${i}`), '/dev/cambricon_ctl'],
    mounts: ['/usr/bin/cnmon'],
    noIsland: {},
  },
};

/** Why a placement cannot run here as asked. */
export class DeviceRuntimeError extends Error {}

/**
 * The environment for a placement's devices: the vendor's visible-devices variables (NVIDIA by uuid when known),
 * the framework variables for devices that share no NVLink/HCCS island, and for a memory slice the vram-guard
 * preloaded with its quota. Throws `DeviceRuntimeError` when a slice cannot be enforced (no guard library).
 */
export function deviceRuntime(
  placed: PlacedDevices,
  nodeDevices: readonly AcceleratorDevice[],
  options: { readonly vramGuardPath?: string; readonly inheritedPreload?: string },
): DeviceRuntime {
  const vendor = VENDOR_RUNTIME[placed.vendor];
  const chosen = placed.indexes.map((i) =>
    nodeDevices.find((d) => d.vendor === placed.vendor && d.index === i),
  );
  const uuids = chosen.map((d) => d?.uuid);
  const ids =
    vendor.byUuid && uuids.every((u): u is string => u !== undefined) ? uuids : placed.indexes.map(String);
  const env: Record<string, string> = {};
  for (const name of vendor.visible) env[name] = ids.join(',');
  if (placed.indexes.length > 1 && !placed.oneIsland) Object.assign(env, vendor.noIsland);
  if (placed.sliceMemoryBytes !== undefined) {
    if (!options.vramGuardPath)
      throw new DeviceRuntimeError('a memory slice needs the vram-guard library (HCN_VRAM_GUARD), not found');
    env.LD_PRELOAD = [options.vramGuardPath, options.inheritedPreload].filter(Boolean).join(':');
    env.HCN_VRAM_QUOTA_BYTES = String(placed.sliceMemoryBytes);
  }
  return { env, deviceNodes: vendor.nodes(placed.indexes), mounts: [...vendor.mounts] };
}
