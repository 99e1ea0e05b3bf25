import type { Decision, PlacedDecision } from '../decision';
import { SchedulingIndex } from '../tree/scheduling-index';
import { node, request, res, threeLevel } from '../testing/fixtures';
import { decide } from './decide';

/** Two nodes whose per-resource maxima look big (16 cores, 128 GiB) but neither takes 8 cores + 32 GiB. */
const lopsided = (site: string) => [
  node(`${site}-n1`, site, { capacity: res(16, 8) }),
  node(`${site}-n2`, site, { capacity: res(2, 128) }),
];
const busy = (site: string) => [
  node(`${site}-n1`, site, { allocated: res(6, 24) }),
  node(`${site}-n2`, site, { allocated: res(6, 24) }),
];
const big = request({ resources: res(8, 32) });

function placed(decision: Decision): PlacedDecision {
  if (decision.outcome !== 'placed') throw new Error(`unschedulable: ${JSON.stringify(decision.reasons)}`);
  return decision;
}
const chain = (d: Decision) => d.hops.map((h) => `${h.scope ?? '(root)'}>${h.chosen}`);

describe('decide: descent with fallback to peers', () => {
  it('skips the best-scoring site when no single node fits and places in its sibling', () => {
    const snapshot = threeLevel({
      nodes: [
        ...lopsided('eu-a'),
        node('eu-b-n2', 'eu-b', { allocated: res(4, 0) }),
        ...busy('us-a'),
        ...busy('us-b'),
      ],
    });
    const d = placed(decide(SchedulingIndex.fromSnapshot(snapshot), big));
    expect(d.nodeId).toBe('eu-b-n1');
    expect(d.domainPath).toEqual(['global', 'eu', 'eu-b']);
    expect(chain(d)).toEqual(['(root)>global', 'global>eu', 'eu>eu-b', 'eu-b>eu-b-n1']);
    expect(d.rejections).toEqual([
      {
        scope: 'eu-a',
        reason: 'SCHEDULE.NO_FEASIBLE_NODE',
        members: 2,
        detail: '2 candidate(s), none usable: FILTER.INSUFFICIENT_CPU ×1, FILTER.INSUFFICIENT_MEMORY ×1',
        candidates: [
          {
            id: 'eu-a-n1',
            kind: 'node',
            accepted: false,
            reason: 'FILTER.INSUFFICIENT_MEMORY',
            detail: 'memory: need 32GiB, free 8GiB',
          },
          {
            id: 'eu-a-n2',
            kind: 'node',
            accepted: false,
            reason: 'FILTER.INSUFFICIENT_CPU',
            detail: 'cpu: need 8000m, free 2000m',
          },
        ],
      },
    ]);
    const euHop = d.hops[2];
    expect(euHop.candidates).toEqual([
      expect.objectContaining({ id: 'eu-a', accepted: false, reason: 'SCHEDULE.SUBTREE_FAILED', score: 100 }),
      { id: 'eu-b', kind: 'domain', accepted: true, score: 87.5 },
    ]);
  });

  it('does not enter a drained site: its verdict says why and a sibling is used', () => {
    const snapshot = threeLevel({
      nodes: [
        node('eu-a-n1', 'eu-a', { draining: true }),
        node('eu-a-n2', 'eu-a', { online: false }),
        ...busy('us-a'),
        ...busy('us-b'),
      ],
    });
    const d = placed(decide(SchedulingIndex.fromSnapshot(snapshot), big));
    expect(d.domainPath).toEqual(['global', 'eu', 'eu-b']);
    expect(d.rejections).toEqual([]);
    expect(d.hops[2].candidates[0]).toEqual({
      id: 'eu-a',
      kind: 'domain',
      accepted: false,
      reason: 'FILTER.DOMAIN_NO_USABLE_NODE',
      detail: 'no online, non-draining node in eu-a (2 nodes: 1 offline, 1 draining)',
    });
  });

  it('falls back to the other region when a whole region fails, recording each failed scope in order', () => {
    const snapshot = threeLevel({
      nodes: [
        ...lopsided('eu-a'),
        ...lopsided('eu-b'),
        ...busy('us-a'),
        node('us-b-n2', 'us-b', { allocated: res(6, 24) }),
      ],
    });
    const d = placed(decide(SchedulingIndex.fromSnapshot(snapshot), big));
    expect(d.nodeId).toBe('us-b-n1');
    expect(chain(d)).toEqual(['(root)>global', 'global>us', 'us>us-b', 'us-b>us-b-n1']);
    expect(d.rejections.map((r) => [r.scope, r.reason])).toEqual([
      ['eu-a', 'SCHEDULE.NO_FEASIBLE_NODE'],
      ['eu-b', 'SCHEDULE.NO_FEASIBLE_NODE'],
      ['eu', 'SCHEDULE.NO_FEASIBLE_NODE'],
    ]);
    expect(d.rejections[2].detail).toBe('2 candidate(s), none usable: SCHEDULE.SUBTREE_FAILED ×2');
    expect(d.hops[1].candidates.map((c) => [c.id, c.accepted, c.reason])).toEqual([
      ['eu', false, 'SCHEDULE.SUBTREE_FAILED'],
      ['us', true, undefined],
    ]);
    // us-a was filtered before a visit (every node there is busy): no rejection of its own.
    expect(d.hops[2].candidates[0]).toEqual(
      expect.objectContaining({ id: 'us-a', reason: 'FILTER.DOMAIN_INSUFFICIENT_CPU' }),
    );
  });

  it('is unschedulable with counts per reason when every site fails', () => {
    const snapshot = threeLevel({ nodes: ['eu-a', 'eu-b', 'us-a', 'us-b'].flatMap(lopsided) });
    const d = decide(SchedulingIndex.fromSnapshot(snapshot), big);
    expect(d.outcome).toBe('unschedulable');
    expect(d.hops).toEqual([]);
    expect(d.rejections.map((r) => r.scope)).toEqual(
      expect.arrayContaining(['eu-a', 'eu-b', 'us-a', 'us-b', 'eu', 'us', 'global', null]),
    );
    expect(d.rejections).toHaveLength(8);
    expect(d.rejections[7].scope).toBeNull();
    expect(d.outcome === 'unschedulable' && d.reasons).toEqual({
      'SCHEDULE.NO_FEASIBLE_NODE': 8,
      'SCHEDULE.SUBTREE_FAILED': 7,
      'FILTER.INSUFFICIENT_CPU': 4,
      'FILTER.INSUFFICIENT_MEMORY': 4,
    });
  });

  it('prunes at the root when nothing in the tree is big enough', () => {
    const d = decide(SchedulingIndex.fromSnapshot(threeLevel()), request({ resources: res(100, 1) }));
    expect(d).toEqual({
      outcome: 'unschedulable',
      hops: [],
      rejections: [
        {
          scope: null,
          reason: 'SCHEDULE.NO_FEASIBLE_NODE',
          members: 1,
          detail: '1 candidate(s), none usable: FILTER.DOMAIN_INSUFFICIENT_CPU ×1',
          candidates: [
            {
              id: 'global',
              kind: 'domain',
              accepted: false,
              reason: 'FILTER.DOMAIN_INSUFFICIENT_CPU',
              detail: 'cpu: need 100000m, largest free on one node 8000m',
            },
          ],
        },
      ],
      reasons: { 'SCHEDULE.NO_FEASIBLE_NODE': 1, 'FILTER.DOMAIN_INSUFFICIENT_CPU': 1 },
      sampleLimit: 64,
    });
  });

  it.each<[string, Parameters<typeof request>[0], string, string]>([
    ['unknown root domain', { rootDomainId: 'mars' }, 'SCHEDULE.UNKNOWN_ROOT', 'unknown root domain mars'],
    [
      'negative request',
      { resources: res(-1, 1) },
      'SCHEDULE.INVALID_REQUEST',
      'requested amounts must be finite and ≥ 0',
    ],
    [
      'NaN request',
      { resources: { cpuMillis: NaN, memoryBytes: 0, accelerators: 0 } },
      'SCHEDULE.INVALID_REQUEST',
      'finite',
    ],
  ])('refuses %s without descending', (...[_, over, reason, detail]) => {
    const d = decide(SchedulingIndex.fromSnapshot(threeLevel()), request(over));
    expect(d).toEqual({
      outcome: 'unschedulable',
      hops: [],
      rejections: [
        expect.objectContaining({ reason, detail: expect.stringContaining(detail), candidates: [] }),
      ],
      reasons: { [reason]: 1 },
    });
  });

  it('says so when there is nothing at all to schedule on', () => {
    const d = decide(SchedulingIndex.fromSnapshot({ domains: [], nodes: [] }), request());
    expect(d).toEqual({
      outcome: 'unschedulable',
      hops: [],
      rejections: [
        {
          scope: null,
          reason: 'SCHEDULE.NO_CANDIDATES',
          members: 0,
          detail: 'no child domains and no nodes',
          candidates: [],
        },
      ],
      reasons: { 'SCHEDULE.NO_CANDIDATES': 1 },
      sampleLimit: 64,
    });
  });

  it('starts at rootDomainId when given', () => {
    const d = placed(decide(SchedulingIndex.fromSnapshot(threeLevel()), request({ rootDomainId: 'us' })));
    expect(d.domainPath[0]).toBe('us');
    expect(d.hops[0]).toEqual(expect.objectContaining({ scope: 'us', policy: 'least-loaded' }));
  });

  it('treats several roots as children of the virtual root', () => {
    const snapshot = threeLevel();
    const twoRoots = {
      domains: [...snapshot.domains, { ...snapshot.domains[0], domainId: 'lab' }],
      nodes: [...snapshot.nodes.map((n) => ({ ...n, allocated: res(4, 16) })), node('lab-n1', 'lab')],
    };
    const d = placed(decide(SchedulingIndex.fromSnapshot(twoRoots), request()));
    expect(d.hops[0]).toEqual(
      expect.objectContaining({ scope: null, policy: 'least-loaded', chosen: 'lab' }),
    );
    expect(d.hops[0].candidates.map((c) => c.id)).toEqual(['global', 'lab']);
    expect(d.nodeId).toBe('lab-n1');
  });
});
