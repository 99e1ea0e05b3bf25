import type { DeviceChoice } from '../../devices/choose-devices';
import type { DeviceRequest } from '../../model';
import type { DeviceScorer } from '../types';
import { fragmentationScorer } from './fragmentation';
import { healthScorer } from './health';
import { topologyScorer } from './topology';
import { vendorPreferenceScorer } from './vendor-preference';

const choice = (over: Partial<DeviceChoice> = {}): DeviceChoice => ({
  vendor: 'nvidia',
  indexes: [0, 1],
  oneIsland: true,
  bandwidthGBps: 300,
  computeUnits: 2,
  meanHealth: 100,
  grants: [],
  fill: 0,
  ...over,
});
const ask: DeviceRequest = { count: 2 };

describe('device scorers, table-driven', () => {
  it.each<[string, DeviceScorer, Partial<DeviceChoice>, DeviceRequest, number]>([
    ['topology: one device', topologyScorer, { indexes: [3], bandwidthGBps: 0 }, ask, 100],
    ['topology: a 300 GB/s island', topologyScorer, {}, ask, 100],
    ['topology: a 150 GB/s island', topologyScorer, { bandwidthGBps: 150 }, ask, 50],
    ['topology: PCIe-only island', topologyScorer, { bandwidthGBps: 32 }, ask, (100 * 32) / 300],
    ['topology: spread over islands', topologyScorer, { oneIsland: false, bandwidthGBps: 0 }, ask, 0],
    ['fragmentation: empty node', fragmentationScorer, { fill: 0 }, ask, 0],
    ['fragmentation: 3/4 in use', fragmentationScorer, { fill: 0.75 }, ask, 75],
    ['health: mean health', healthScorer, { meanHealth: 82.5 }, ask, 82.5],
    ['vendor: no preference', vendorPreferenceScorer, {}, ask, 100],
    [
      'vendor: first choice',
      vendorPreferenceScorer,
      {},
      { ...ask, preferVendors: ['nvidia', 'ascend'] },
      100,
    ],
    [
      'vendor: second choice',
      vendorPreferenceScorer,
      {},
      { ...ask, preferVendors: ['ascend', 'nvidia'] },
      50,
    ],
    ['vendor: not listed', vendorPreferenceScorer, {}, { ...ask, preferVendors: ['ascend'] }, 0],
  ])('%s', (_name, scorer, over, request, expected) => {
    expect(scorer.score(choice(over), request)).toBeCloseTo(expected, 6);
  });
});
