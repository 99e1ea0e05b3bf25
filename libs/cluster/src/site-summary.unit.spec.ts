import { siteSummarySchema } from '@hcn/contracts';
import type { ClusterSnapshot, DeviceView, NodeView } from '@hcn/scheduling';
import { siteSummaryOf } from './site-summary';

const GiB = 2 ** 30;
const device = (index: number, model: string, held: Partial<DeviceView> = {}): DeviceView => ({
  index,
  vendor: 'nvidia',
  model,
  memoryBytes: 80 * GiB,
  tflopsFp16: 0,
  health: 100,
  island: index,
  islandBandwidthGBps: 0,
  computeUnits: 0,
  wholeHeld: false,
  slicedBytes: 0,
  ...held,
});
const node = (nodeId: string, domainId: string, more: Partial<NodeView> = {}): NodeView => ({
  nodeId,
  domainId,
  labels: {},
  online: true,
  draining: false,
  capacity: { cpuMillis: 8000, memoryBytes: 32 * GiB, accelerators: 0 },
  allocated: { cpuMillis: 0, memoryBytes: 0, accelerators: 0 },
  ...more,
});

const snapshot: ClusterSnapshot = {
  domains: [
    { domainId: 'eu', parentId: null, region: 'eu-west', labels: {}, policy: 'least-loaded', placements: 0 },
    { domainId: 'eu-rack-1', parentId: 'eu', region: null, labels: {}, policy: 'bin-pack', placements: 0 },
    { domainId: 'lab', parentId: null, region: null, labels: {}, policy: 'least-loaded', placements: 0 },
  ],
  nodes: [
    node('n1', 'eu-rack-1', {
      labels: { zone: 'a' },
      runtimes: ['container', 'process'],
      allocated: { cpuMillis: 3000, memoryBytes: 40 * GiB, accelerators: 1 },
      devices: [
        device(0, 'A100', { wholeHeld: true }),
        device(1, 'A100'),
        device(2, 'H100', { slicedBytes: GiB }),
      ],
    }),
    node('n2', 'eu-rack-1', { online: false, devices: [device(0, 'A100')] }),
    node('n3', 'lab'),
  ],
};

describe('siteSummaryOf', () => {
  const summary = siteSummaryOf(snapshot, 7, new Date('2030-01-01T00:00:00.000Z'));

  it('counts nodes per domain and in all, every defined domain listed', () => {
    expect(summary.domains).toEqual([
      { domainId: 'eu', online: 0, offline: 0 },
      { domainId: 'eu-rack-1', online: 1, offline: 1 },
      { domainId: 'lab', online: 1, offline: 0 },
    ]);
    expect(summary.nodes).toEqual({ online: 2, offline: 1 });
  });

  it('sums total and free CPU and memory over online nodes, never less than nothing free', () => {
    expect(summary.cpuMillis).toEqual({ total: 16000, free: 13000 });
    expect(summary.memoryBytes).toEqual({ total: 64 * GiB, free: 32 * GiB });
  });

  it('groups online accelerators by vendor and model, a held or sliced device not free', () => {
    expect(summary.accelerators).toEqual([
      { vendor: 'nvidia', model: 'A100', total: 2, free: 1 },
      { vendor: 'nvidia', model: 'H100', total: 1, free: 0 },
    ]);
  });

  it('tags label pairs and runtimes of online nodes; regions inherited down the tree', () => {
    expect(summary.tags).toEqual(['runtime:container', 'runtime:process', 'zone=a']);
    expect(summary.regions).toEqual(['eu-west']);
  });

  it('is a valid summary as the contract defines it', () => {
    expect(siteSummarySchema.parse(summary)).toEqual(summary);
    expect(summary.seq).toBe(7);
  });
});
