import type { Constraints, PlacementRequest } from '../model';
import { SchedulingIndex } from '../tree/scheduling-index';
import { domain, node, request, threeLevel } from '../testing/fixtures';
import { decide } from './decide';

// us-b has its own region (us-west), overriding the inherited us; its nodes carry gpu labels.
const snapshot = threeLevel({
  domains: [domain('us-b', 'us', { region: 'us-west' })],
  nodes: [
    node('us-b-n1', 'us-b', { labels: { 'gpu.vendor': 'nvidia' } }),
    node('us-b-n2', 'us-b', { labels: { 'gpu.vendor': 'ascend' } }),
  ],
});
const index = SchedulingIndex.fromSnapshot(snapshot);
const allNodes = snapshot.nodes.map((n) => n.nodeId);

describe('decide: hard constraints', () => {
  it.each<[string, Partial<Constraints>, Partial<PlacementRequest>, string[]]>([
    [
      'domain affinity to a site',
      { domains: { affinity: ['us-b'], antiAffinity: [] } },
      {},
      ['us-b-n1', 'us-b-n2'],
    ],
    [
      'domain affinity to a region',
      { domains: { affinity: ['eu'], antiAffinity: [] } },
      {},
      ['eu-a-n1', 'eu-a-n2', 'eu-b-n1', 'eu-b-n2'],
    ],
    [
      'anti-affinity to a region and a site',
      { domains: { affinity: [], antiAffinity: ['eu', 'us-a'] } },
      {},
      ['us-b-n1', 'us-b-n2'],
    ],
    [
      'region affinity follows inheritance',
      { regions: { affinity: ['us'], antiAffinity: [] } },
      {},
      ['us-a-n1', 'us-a-n2'],
    ],
    [
      'an own region overrides the inherited one',
      { regions: { affinity: ['us-west'], antiAffinity: [] } },
      {},
      ['us-b-n1', 'us-b-n2'],
    ],
    [
      'region anti-affinity',
      { regions: { affinity: [], antiAffinity: ['eu', 'us'] } },
      {},
      ['us-b-n1', 'us-b-n2'],
    ],
    ['labels', { labels: [{ key: 'gpu.vendor', op: '=', value: 'ascend' }] }, {}, ['us-b-n2']],
    ['blacklist all but one', { nodeBlacklist: allNodes.filter((n) => n !== 'eu-b-n2') }, {}, ['eu-b-n2']],
    ['excludeNodes all but one', {}, { excludeNodes: allNodes.filter((n) => n !== 'us-a-n1') }, ['us-a-n1']],
  ])('%s', (...[_, constraints, over, allowed]) => {
    for (let w = 0; w < 10; w++) {
      const d = decide(index, request({ workloadId: `w-${w}`, ...over }, constraints));
      expect(d.outcome === 'placed' && allowed.includes(d.nodeId)).toBe(true);
    }
  });

  it.each<[string, Partial<Constraints>, Record<string, number>]>([
    [
      'contradictory domain lists',
      { domains: { affinity: ['eu'], antiAffinity: ['global'] } },
      { 'FILTER.DOMAIN_ANTI_AFFINITY': 1, 'SCHEDULE.NO_FEASIBLE_NODE': 1 },
    ],
    [
      'affinity to an unknown domain',
      { domains: { affinity: ['mars'], antiAffinity: [] } },
      { 'FILTER.DOMAIN_AFFINITY': 1, 'SCHEDULE.NO_FEASIBLE_NODE': 1 },
    ],
    [
      'a label no node has (pruned at the root by the label counts)',
      { labels: [{ key: 'gpu.vendor', op: '=', value: 'mlu' }] },
      { 'FILTER.LABEL_MISMATCH': 1, 'SCHEDULE.NO_FEASIBLE_NODE': 1 },
    ],
    [
      'everything blacklisted',
      { nodeBlacklist: allNodes },
      { 'FILTER.NODE_BLACKLISTED': 8, 'SCHEDULE.NO_FEASIBLE_NODE': 8, 'SCHEDULE.SUBTREE_FAILED': 7 },
    ],
  ])('unschedulable: %s', (...[_, constraints, reasons]) => {
    const d = decide(index, request({}, constraints));
    expect(d.outcome === 'unschedulable' && d.reasons).toEqual(reasons);
  });

  it('explains label rejections per node', () => {
    const d = decide(index, request({}, { labels: [{ key: 'gpu.vendor', op: 'in', values: ['nvidia'] }] }));
    expect(d.outcome).toBe('placed');
    const site = d.hops[d.hops.length - 1];
    expect(site.scope).toBe('us-b');
    expect(site.candidates).toEqual([
      { id: 'us-b-n1', kind: 'node', accepted: true, score: 100 },
      {
        id: 'us-b-n2',
        kind: 'node',
        accepted: false,
        reason: 'FILTER.LABEL_MISMATCH',
        detail: 'label gpu.vendor in (nvidia) not met: node has gpu.vendor=ascend',
      },
    ]);
  });
});
