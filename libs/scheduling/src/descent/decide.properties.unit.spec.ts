import type { ClusterSnapshot, PolicyName, Resources } from '../model';
import { fitsIn, freeOf } from '../resources';
import { SchedulingIndex } from '../tree/scheduling-index';
import { domain, node, request, res, threeLevel } from '../testing/fixtures';
import { decide } from './decide';

/** A mixed tree: each site and region with its own policy, nodes of several shapes, one offline. */
function mixed(policies: PolicyName[]): ClusterSnapshot {
  const sites = ['eu-a', 'eu-b', 'us-a', 'us-b'];
  const domains = threeLevel().domains.map((d, i) => ({ ...d, policy: policies[i % policies.length] }));
  const shapes = [res(4, 16), res(16, 64, 2), res(32, 128, 8), res(8, 8)];
  const nodes = sites.flatMap((site, s) =>
    shapes.map((capacity, k) => node(`${site}-n${k}`, site, { capacity, online: !(s === 3 && k === 2) })),
  );
  return { domains, nodes };
}

const sizes: Resources[] = [res(1, 2), res(3, 10), res(2, 4, 1), res(6, 20), res(0.5, 1), res(4, 4, 2)];

describe('decide: properties', () => {
  const policies: PolicyName[][] = [
    ['least-loaded'],
    ['bin-pack'],
    ['spread'],
    ['random'],
    ['round-robin'],
    ['locality'],
    ['bin-pack', 'random', 'spread', 'round-robin', 'locality', 'least-loaded', 'bin-pack'],
  ];

  it.each(policies.map((p) => [p.join(','), p] as const))(
    'reserve after each placement never overcommits, and stops only when no node fits (%s)',
    (_, policy) => {
      const snapshot = mixed(policy);
      const index = SchedulingIndex.fromSnapshot(snapshot);
      let placements = 0;
      for (let i = 0; i < 1000; i++) {
        const resources = sizes[i % sizes.length];
        const d = decide(index, request({ workloadId: `w-${i}`, resources }, { preferDomains: ['us-b'] }));
        const someFits = snapshot.nodes.some((n) => {
          const view = index.nodeView(n.nodeId)!;
          return view.online && fitsIn(resources, freeOf(view.capacity, view.allocated));
        });
        expect(d.outcome === 'placed').toBe(someFits);
        if (d.outcome !== 'placed') continue;
        expect(index.reserve(d.nodeId, resources)).toBe(true);
        placements++;
      }
      for (const n of snapshot.nodes) {
        const { capacity, allocated } = index.nodeView(n.nodeId)!;
        expect(fitsIn(allocated, capacity)).toBe(true);
        if (!n.online) expect(allocated).toEqual(res(0, 0));
      }
      expect(placements).toBeGreaterThan(40);
    },
  );

  it('is deterministic: same inputs give deep-equal decisions, whatever the snapshot order', () => {
    const snapshot = mixed(['random', 'locality', 'spread']);
    const shuffled = { domains: [...snapshot.domains].reverse(), nodes: [...snapshot.nodes].reverse() };
    for (let i = 0; i < 20; i++) {
      const req = request({ workloadId: `job-${i}`, instance: i % 3, resources: sizes[i % sizes.length] });
      const a = decide(SchedulingIndex.fromSnapshot(snapshot), req);
      expect(decide(SchedulingIndex.fromSnapshot(snapshot), req)).toEqual(a);
      expect(decide(SchedulingIndex.fromSnapshot(shuffled), req)).toEqual(a);
    }
  });

  it('spreads different workload ids across nodes under random', () => {
    const nodes = Array.from({ length: 20 }, (_, i) => node(`n${i}`, 'site'));
    const index = SchedulingIndex.fromSnapshot({
      domains: [domain('site', null, { policy: 'random' })],
      nodes,
    });
    const chosen = new Map<string, number>();
    for (let w = 0; w < 400; w++) {
      const d = decide(index, request({ workloadId: `w-${w}` }));
      if (d.outcome === 'placed') chosen.set(d.nodeId, (chosen.get(d.nodeId) ?? 0) + 1);
    }
    expect(chosen.size).toBe(20);
    expect(Math.max(...chosen.values())).toBeLessThan(45);
  });

  it('round-robin takes turns as placements are reserved', () => {
    const nodes = ['a', 'b', 'c'].map((id) => node(id, 'site'));
    const index = SchedulingIndex.fromSnapshot({
      domains: [domain('site', null, { policy: 'round-robin' })],
      nodes,
    });
    const order: string[] = [];
    for (let i = 0; i < 6; i++) {
      const d = decide(index, request({ workloadId: `w-${i}` }));
      if (d.outcome !== 'placed') throw new Error('unschedulable');
      order.push(d.nodeId);
      index.reserve(d.nodeId, res(1, 1));
    }
    expect(order).toEqual(['a', 'b', 'c', 'a', 'b', 'c']);
  });

  it('bin-pack fills one node before the next; least-loaded alternates', () => {
    const run = (policy: PolicyName) => {
      const nodes = ['a', 'b'].map((id) => node(id, 'site'));
      const index = SchedulingIndex.fromSnapshot({ domains: [domain('site', null, { policy })], nodes });
      return Array.from({ length: 4 }, (_, i) => {
        const d = decide(index, request({ workloadId: `w-${i}`, resources: res(2, 8) }));
        if (d.outcome !== 'placed') throw new Error('unschedulable');
        index.reserve(d.nodeId, res(2, 8));
        return d.nodeId;
      });
    };
    const packed = run('bin-pack');
    expect(new Set(packed.slice(0, 4)).size).toBe(1);
    const balanced = run('least-loaded');
    expect(balanced[0]).not.toBe(balanced[1]);
    expect(balanced[2]).not.toBe(balanced[3]);
  });
});
