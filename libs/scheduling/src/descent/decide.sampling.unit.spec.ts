import { SchedulingIndex } from '../tree/scheduling-index';
import { domain, indexOf, node, request, res } from '../testing/fixtures';
import type { PolicyName } from '../model';
import { decide } from './decide';

/** One site (policy `policy`) of `count` nodes; `fits(i)` says which can take 2 cores. */
function site(count: number, fits: (i: number) => boolean = () => true, policy: PolicyName = 'least-loaded') {
  const nodes = Array.from({ length: count }, (_, i) =>
    node(`n${String(i).padStart(4, '0')}`, 's', { capacity: fits(i) ? res(8, 32) : res(1, 32) }),
  );
  return indexOf([domain('s', null, { policy })], nodes);
}

const twoCores = (over: Parameters<typeof request>[0] = {}) => request({ resources: res(2, 1), ...over });

describe('decide: a large scope is judged on a seeded sample (bounded work per decision)', () => {
  it('judges members until `sampleLimit` of them fit, and records how many the scope had', () => {
    const d = decide(site(1000), twoCores({ sampleLimit: 10 }));
    const last = d.hops[d.hops.length - 1];
    expect([d.outcome, last.members, last.candidates.length, d.sampleLimit]).toEqual([
      'placed',
      1000,
      10,
      10,
    ]);
    expect(last.candidates.map((c) => c.id)).toEqual([...last.candidates.map((c) => c.id)].sort());
    expect(last.candidates.map((c) => c.id)).toContain(last.chosen);
  });

  it('is the same decision every time for the same request and view (replayable)', () => {
    const index = site(1000);
    const first = decide(index, twoCores({ sampleLimit: 10, workloadId: 'w-7' }));
    expect(decide(index, twoCores({ sampleLimit: 10, workloadId: 'w-7' }))).toEqual(first);
  });

  it('starts each decision somewhere else: decisions spread over the scope', () => {
    const index = site(1000);
    const chosen = new Set(
      Array.from({ length: 100 }, (_, i) => {
        const d = decide(index, twoCores({ sampleLimit: 10, workloadId: `w-${i}` }));
        return d.outcome === 'placed' ? d.nodeId : '';
      }),
    );
    expect(chosen.size).toBeGreaterThan(60);
  });

  it('still finds the only node that fits, judging every member to get there', () => {
    const d = decide(
      site(1000, (i) => i === 417),
      twoCores({ sampleLimit: 10 }),
    );
    expect(d.outcome === 'placed' && d.nodeId).toBe('n0417');
    expect(d.hops[d.hops.length - 1].candidates).toHaveLength(1000);
  });

  it('says why nothing fits after judging every member', () => {
    const index = site(500);
    const everyNode = Array.from({ length: 500 }, (_, i) => `n${String(i).padStart(4, '0')}`);
    const d = decide(index, twoCores({ sampleLimit: 10, excludeNodes: everyNode }));
    expect(d.outcome).toBe('unschedulable');
    const rejection = d.rejections.find((r) => r.scope === 's');
    expect(rejection).toMatchObject({ members: 500, reason: 'SCHEDULE.NO_FEASIBLE_NODE' });
    expect(rejection?.candidates).toHaveLength(500);
    expect(d.outcome === 'unschedulable' && d.reasons['FILTER.NODE_EXCLUDED']).toBe(500);
  });

  it.each([
    ['a small scope', 64, 50, 'least-loaded'],
    ['an unbounded request (sampleLimit 0)', 0, 1000, 'least-loaded'],
  ] as const)('judges every member of %s', (_what, sampleLimit, count, policy) => {
    const d = decide(
      site(count, () => true, policy),
      twoCores({ sampleLimit }),
    );
    expect(d.hops[d.hops.length - 1].candidates).toHaveLength(count);
  });

  it('gives each turn of a large round-robin scope to the member whose turn it is, or the next that can take it', () => {
    const index = site(1000, (i) => i % 3 !== 1, 'round-robin');
    const chosen = Array.from({ length: 6 }, (_, i) => {
      const d = decide(index, twoCores({ sampleLimit: 10, workloadId: `w-${i}` }));
      if (d.outcome !== 'placed') throw new Error('unplaced');
      index.reserve(d.nodeId, res(2, 1));
      return d.nodeId;
    });
    // turn k (the scope's k-th placement) goes to member k, or the next one after it that can take it
    expect(chosen).toEqual(['n0000', 'n0002', 'n0002', 'n0003', 'n0005', 'n0005']);
  });

  it('judges further windows when every sampled domain fails below, and places in a later one', () => {
    const sites = Array.from({ length: 200 }, (_, i) => domain(`d${String(i).padStart(3, '0')}`, null));
    const nodes = sites.map((d) => node(`${d.domainId}-n`, d.domainId));
    const excluded = nodes.filter((_, i) => i !== 123).map((n) => n.nodeId);
    const d = decide(SchedulingIndex.fromSnapshot({ domains: sites, nodes }), {
      ...twoCores({ sampleLimit: 5 }),
      excludeNodes: excluded,
    });
    expect(d.outcome === 'placed' && d.nodeId).toBe('d123-n');
    expect(d.hops[0]).toMatchObject({ scope: null, members: 200, chosen: 'd123' });
    expect(d.rejections.length).toBeGreaterThan(0);
  });
});
