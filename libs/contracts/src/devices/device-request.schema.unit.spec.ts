import { workloadSpecSchema } from '../events/workload.spec';
import { deviceRequestSchema } from './device-request.schema';

const GiB = 2 ** 30;
const spec = (devices: unknown, accelerators: number) => ({
  name: 'train',
  command: 'python3',
  resources: { cpuMillis: 1000, memoryBytes: GiB, accelerators },
  devices,
});

describe('deviceRequestSchema', () => {
  it('applies defaults: one device, any topology, health 50', () => {
    expect(deviceRequestSchema.parse({})).toEqual({ count: 1, topology: 'any', minHealth: 50 });
  });

  it.each([
    ['four A100s in one island', { count: 4, topology: 'same-island', models: { allow: ['A100-80G'] } }],
    ['an Ascend 910B by compute units', { count: 2, vendors: { allow: ['ascend'] }, computeUnits: 1.2 }],
    ['a 10 GiB slice', { sliceMemoryBytes: 10 * GiB }],
    ['an H100 (rate derived from TFLOPS)', { models: { allow: ['NVIDIA H100 80GB HBM3'] } }],
  ])('accepts %s', (_name, request) => {
    expect(deviceRequestSchema.safeParse(request).success).toBe(true);
  });

  it.each([
    ['an unknown vendor', { vendors: { allow: ['intel'] } }, 'vendors'],
    ['an unknown model', { models: { allow: ['TPU v5'] } }, 'models'],
    ['a slice of two devices', { count: 2, sliceMemoryBytes: GiB }, 'count'],
    [
      'a slice of a non-CUDA vendor',
      { sliceMemoryBytes: GiB, vendors: { allow: ['ascend'] } },
      'sliceMemoryBytes',
    ],
    [
      'one island of DCUs (no NVLink/HCCS)',
      { count: 2, topology: 'same-island', vendors: { allow: ['hygon'] } },
      'topology',
    ],
    ['lists that exclude every vendor', { vendors: { allow: ['nvidia'], deny: ['nvidia'] } }, 'vendors'],
    ['an unknown field', { gpus: 2 }, ''],
  ])('refuses %s', (_name, request, path) => {
    const result = deviceRequestSchema.safeParse(request);
    expect(result.success).toBe(false);
    if (!result.success && path) expect(result.error.issues.map((i) => String(i.path[0]))).toContain(path);
  });
});

describe('workload spec with devices', () => {
  it('needs resources.accelerators to match the whole devices asked for', () => {
    expect(workloadSpecSchema.safeParse(spec({ count: 2 }, 2)).success).toBe(true);
    expect(workloadSpecSchema.safeParse(spec({ count: 2 }, 1)).success).toBe(false);
    expect(workloadSpecSchema.safeParse(spec({ sliceMemoryBytes: GiB }, 0)).success).toBe(true);
    expect(workloadSpecSchema.safeParse(spec({ sliceMemoryBytes: GiB }, 1)).success).toBe(false);
  });
});
