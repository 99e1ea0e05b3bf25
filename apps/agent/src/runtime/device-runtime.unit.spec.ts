import type { AcceleratorDevice, PlacedDevices } from '@hcn/contracts';
import { DeviceRuntimeError, deviceRuntime } from './device-runtime';

const gpu = (index: number, uuid?: string): AcceleratorDevice => ({
  index,
  vendor: 'nvidia',
  model: 'NVIDIA H100 80GB HBM3',
  ...(uuid ? { uuid } : {}),
  numaNode: 0,
  health: 100,
  interconnect: [],
});
const npu = (index: number): AcceleratorDevice => ({ ...gpu(index), vendor: 'ascend', model: 'Ascend 910B' });
const placed = (over: Partial<PlacedDevices>): PlacedDevices => ({
  vendor: 'nvidia',
  indexes: [0],
  oneIsland: true,
  bandwidthGBps: 0,
  computeUnits: 1,
  scores: {},
  ...over,
});

describe('deviceRuntime', () => {
  it.each<[string, PlacedDevices, AcceleratorDevice[], Record<string, string>]>([
    [
      'NVIDIA by uuid',
      placed({ indexes: [1, 3] }),
      [gpu(0, 'GPU-a'), gpu(1, 'GPU-b'), gpu(3, 'GPU-d')],
      { CUDA_VISIBLE_DEVICES: 'GPU-b,GPU-d', NVIDIA_VISIBLE_DEVICES: 'GPU-b,GPU-d' },
    ],
    [
      'NVIDIA by index when a uuid is unknown, P2P off across islands',
      placed({ indexes: [0, 4], oneIsland: false }),
      [gpu(0, 'GPU-a'), gpu(4)],
      { CUDA_VISIBLE_DEVICES: '0,4', NVIDIA_VISIBLE_DEVICES: '0,4', NCCL_P2P_DISABLE: '1' },
    ],
    [
      'Ascend across islands',
      placed({ vendor: 'ascend', indexes: [2, 5], oneIsland: false }),
      [npu(2), npu(5)],
      {
        ASCEND_RT_VISIBLE_DEVICES: '2,5',
        ASCEND_VISIBLE_DEVICES: '2,5',
        HCCL_INTRA_PCIE_ENABLE: '1',
        HCCL_INTRA_ROCE_ENABLE: '0',
      },
    ],
    ['Hygon DCU', placed({ vendor: 'hygon', indexes: [1] }), [], { HIP_VISIBLE_DEVICES: '1' }],
    ['Cambricon MLU', placed({ vendor: 'cambricon', indexes: [0, 1] }), [], { MLU_VISIBLE_DEVICES: '0,1' }],
  ])('%s', (_name, p, devices, env) => {
    expect(deviceRuntime(p, devices, {}).env).toEqual(env);
  });

  it('preloads the guard with the slice as quota, ahead of an inherited preload', () => {
    const runtime = deviceRuntime(placed({ sliceMemoryBytes: 10 * 2 ** 30 }), [gpu(0, 'GPU-a')], {
      vramGuardPath: '/opt/hcn/libvramguard.so',
      inheritedPreload: '/usr/lib/libtcmalloc.so',
    });
    expect(runtime.env).toEqual({
      CUDA_VISIBLE_DEVICES: 'GPU-a',
      NVIDIA_VISIBLE_DEVICES: 'GPU-a',
      LD_PRELOAD: '/opt/hcn/libvramguard.so:/usr/lib/libtcmalloc.so',
      HCN_VRAM_QUOTA_BYTES: String(10 * 2 ** 30),
    });
  });

  it('refuses a slice it cannot enforce', () => {
    expect(() => deviceRuntime(placed({ sliceMemoryBytes: 1024 }), [], {})).toThrow(DeviceRuntimeError);
  });

  it('names the device nodes and driver mounts a container would need', () => {
    const runtime = deviceRuntime(placed({ indexes: [2] }), [], {});
    expect(runtime.deviceNodes).toEqual([
      '/dev/nvidia2',
      '/dev/nvidiactl',
      '/dev/nvidia-uvm',
      '/dev/nvidia-uvm-tools',
    ]);
    expect(runtime.mounts).toContain('/usr/bin/nvidia-smi');
  });
});
