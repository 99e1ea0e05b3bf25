import { interconnectIslands } from '@hcn/contracts';
import { parse as parseYaml } from 'yaml';
import { declaredDevicesSchema, expandDeclaredDevices, memorySizeSchema } from './declared-devices';

const GIB = 1024 ** 3;
const expand = (input: unknown) => expandDeclaredDevices(declaredDevicesSchema.parse(input));

describe('memorySizeSchema', () => {
  it.each([
    [1024, 1024],
    ['80G', 80 * GIB],
    ['80Gi', 80 * GIB],
    ['80GiB', 80 * GIB],
    ['80 GB', 80 * GIB],
    ['65536Mi', 64 * GIB],
    ['1.5T', 1.5 * 1024 * GIB],
    ['512B', 512],
    ['512', 512],
  ])('%j → %d bytes', (input, bytes) => {
    expect(memorySizeSchema.parse(input)).toBe(bytes);
  });

  it.each([['80 GB of HBM'], [-1], ['eighty'], [1.5]])('rejects %j', (input) => {
    expect(memorySizeSchema.safeParse(input).success).toBe(false);
  });
});

describe('expandDeclaredDevices', () => {
  it('expands a YAML 8-GPU box with two NVLink islands', () => {
    const yaml = `
- vendor: nvidia
  model: NVIDIA A800-SXM4-80GB
  memory: 80Gi
  count: 8
  islands: [[0, 1, 2, 3], [4, 5, 6, 7]]
`;
    const devices = expand(parseYaml(yaml));
    expect(devices.map((d) => d.index)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(devices[0]).toEqual({
      index: 0,
      vendor: 'nvidia',
      model: 'NVIDIA A800-SXM4-80GB',
      memoryBytes: 80 * GIB,
      numaNode: null,
      health: 100,
      interconnect: [1, 2, 3].map((peer) => ({ kind: 'nvlink', peer, bandwidthGBps: 300 })),
    });
    expect(interconnectIslands(devices)).toEqual([
      [0, 1, 2, 3],
      [4, 5, 6, 7],
    ]);
  });

  it.each([
    [
      'vendors count indices separately, groups of one vendor continue',
      [
        { vendor: 'nvidia', model: 'A100', count: 2 },
        { vendor: 'ascend', model: '910B', count: 1 },
        { vendor: 'nvidia', model: 'A800', count: 1 },
      ],
      ['nvidia/0', 'nvidia/1', 'ascend/0', 'nvidia/2'],
    ],
    [
      'firstIndex and explicit entry indices',
      [
        { vendor: 'hygon', model: 'Z100', count: 2, firstIndex: 4 },
        { vendor: 'hygon', model: 'Z100', entries: [{}, { index: 9 }, {}] },
      ],
      ['hygon/4', 'hygon/5', 'hygon/6', 'hygon/9', 'hygon/10'],
    ],
  ])('%s', (_name, groups, keys) => {
    expect(expand(groups).map((d) => `${d.vendor}/${d.index}`)).toEqual(keys);
  });

  it('lets entries override the group and uses the vendor default island link', () => {
    const [a, b] = expand([
      {
        vendor: 'ascend',
        model: 'Ascend 910B3',
        memory: '64Gi',
        numaNode: 0,
        tflopsFp16: 313,
        islands: [[0, 1]],
        entries: [
          { uuid: 'u0', busId: '0000:C1:00.0' },
          { numaNode: 1, health: 60, memory: '32Gi', model: '910A' },
        ],
      },
    ]);
    expect(a).toMatchObject({
      uuid: 'u0',
      busId: '0000:C1:00.0',
      numaNode: 0,
      memoryBytes: 64 * GIB,
      tflopsFp16: 313,
    });
    expect(b).toMatchObject({ model: '910A', numaNode: 1, health: 60, memoryBytes: 32 * GIB });
    expect(a.interconnect).toEqual([{ kind: 'hccs', peer: 1, bandwidthGBps: 56 }]);
  });
});

describe('declaredDevicesSchema', () => {
  it.each([
    [
      'count and entries',
      [{ vendor: 'nvidia', model: 'A100', count: 1, entries: [{}] }],
      /either count or entries/,
    ],
    ['neither count nor entries', [{ vendor: 'nvidia', model: 'A100' }], /either count or entries/],
    ['an unknown vendor', [{ vendor: 'amd', model: 'MI300', count: 1 }], /vendor/],
    [
      'an unknown key',
      [{ vendor: 'nvidia', model: 'A100', count: 1, colour: 'green' }],
      /colour|Unrecognized/,
    ],
    [
      'a repeated index',
      [{ vendor: 'nvidia', model: 'A100', entries: [{ index: 1 }, { index: 1 }] }],
      /declared twice/,
    ],
    [
      'an island outside the group',
      [{ vendor: 'nvidia', model: 'A100', count: 2, islands: [[0, 2]] }],
      /device 2/,
    ],
  ])('rejects %s', (_name, input, message) => {
    const result = declaredDevicesSchema.safeParse(input);
    expect(result.success).toBe(false);
    expect(JSON.stringify(result.error?.issues)).toMatch(message);
  });
});
