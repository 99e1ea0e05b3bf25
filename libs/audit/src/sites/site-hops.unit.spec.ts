import { buildChain } from '../chain/build-chain';
import { renderChainText } from '../chain/render-chain';
import { LogBuilder } from '../testing/recorded';
import { siteHopsOf } from './site-hops';

const W = '11111111-1111-4111-8111-111111111111';
const D1 = '22222222-2222-4222-8222-222222222222';
const D2 = '33333333-3333-4333-8333-333333333333';
const C = '44444444-4444-4444-8444-444444444444';
const at = (s: number) => new Date(Date.UTC(2026, 10, 1, 0, 0, s)).toISOString();
const H = (n: number) => String(n).repeat(64);

describe('siteHopsOf', () => {
  it('given hand-overs, acceptance and status from the site, then each hop has its site, workload and anchors', () => {
    const log = new LogBuilder();
    const ws = `workload-${W}`;
    log.add(
      ws,
      'WorkloadSubmitted',
      { workloadId: W, spec: { name: 'job', namespace: 'team-a', replicas: 1 } },
      at(0),
    );
    const decision = (site: string) => ({
      hops: [
        { scope: 'root', policy: 'spread', to: 0, members: 1, judged: 1, kept: [['n', `site:${site}`, 1]] },
      ],
      topK: 5,
    });
    const base = { workloadId: W, instance: 0, generation: 1, resources: {} };
    log.add(
      ws,
      'AllocationDelegated',
      {
        ...base,
        allocationId: D1,
        attempt: 0,
        siteId: 'child-b',
        relation: 'child',
        decision: decision('child-b'),
      },
      at(1),
    );
    const refusal = {
      workloadId: W,
      instance: 0,
      attempt: 0,
      scope: 'site:child-b',
      reason: 'quota',
      detail: '',
      candidates: [],
    };
    log.add(ws, 'DelegationRejected', { ...refusal, allocationId: D1, siteId: 'child-b' }, at(2));
    log.add(
      ws,
      'AllocationDelegated',
      {
        ...base,
        allocationId: D2,
        attempt: 1,
        siteId: 'peer-x',
        relation: 'peer',
        decision: decision('peer-x'),
      },
      at(3),
    );
    const accepted = {
      workloadId: W,
      allocationId: D2,
      siteId: 'peer-x',
      siteWorkloadId: C,
      acceptedAt: at(4),
    };
    log.add(ws, 'DelegationAccepted', { ...accepted, siteRevision: 1, siteHash: H(1) }, at(4));
    const started = { workloadId: W, allocationId: D2, nodeId: 'site:peer-x', pid: 7, startedAt: at(5) };
    log.add(ws, 'AllocationStarted', { ...started, siteRevision: 2, siteHash: H(2) }, at(5));
    // a status without an anchor (a node's report has none) adds nothing
    log.add(ws, 'AllocationReady', { workloadId: W, allocationId: D2, nodeId: 'site:peer-x' }, at(6));

    const events = log.stream(ws);
    const chain = buildChain(events);
    // a hand-over is a decision placed at the site; its acceptance a line of the timeline at the site's place
    expect(
      chain.decisions.map((d) => [d.outcome.kind, d.outcome.kind === 'placed' && d.outcome.nodeId]),
    ).toEqual([
      ['placed', 'site:child-b'],
      ['placed', 'site:peer-x'],
    ]);
    expect(chain.decisions[1]).toMatchObject({
      trigger: 'fallback-after-site-refusal',
      outcome: { site: { siteId: 'peer-x', relation: 'peer' }, domainId: 'root' },
      rejections: [{ scope: 'site:child-b', reason: 'quota' }],
    });
    expect(
      chain.timeline
        .filter((e) => e.entry === 'allocation')
        .map((e) => e.entry === 'allocation' && e.allocation.kind),
    ).toEqual(['refused-by-site', 'accepted-by-site', 'started', 'ready']);
    expect(renderChainText(chain)).toContain(`delegated ${D2} to peer site peer-x (from root)`);
    const hops = siteHopsOf(events, chain);
    expect(hops).toEqual([
      { siteId: 'child-b', relation: 'child', delegationId: D1, namespace: 'team-a', hopSeq: 0, anchors: [] },
      {
        siteId: 'peer-x',
        relation: 'peer',
        delegationId: D2,
        namespace: 'team-a',
        hopSeq: 1,
        remoteWorkloadId: C,
        anchors: [
          { revision: 1, hash: H(1) },
          { revision: 2, hash: H(2) },
        ],
      },
    ]);
  });

  it('given a workload that never left this site, then there are no hops', () => {
    const log = new LogBuilder();
    log.add(
      `workload-${W}`,
      'WorkloadSubmitted',
      { workloadId: W, spec: { name: 'job', namespace: 'a', replicas: 1 } },
      at(0),
    );
    expect(siteHopsOf(log.events)).toEqual([]);
  });
});
