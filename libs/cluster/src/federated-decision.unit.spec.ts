import type { RecordedHcnEvent, SiteSummary } from '@hcn/contracts';
import type { NodeEvent } from '@hcn/domain';
import { NO_CONSTRAINTS, PlacementRequest, decide } from '@hcn/scheduling';
import { ClusterFold } from './cluster-fold';
import { DEFAULT_FEDERATION_ORDER } from './federated-decision';

const GiB = 2 ** 30;
const uuid = (n: number) => `00000000-0000-4000-8000-${n.toString(16).padStart(12, '0')}`;
const NODE = uuid(1);
const AT = '2026-11-26T10:00:00.000Z';

/** Events recorded with stream revisions and growing positions, applied to one fold. */
class Log {
  readonly fold = new ClusterFold();
  private readonly revisions = new Map<string, number>();
  private position = 0;
  readonly recorded: RecordedHcnEvent[] = [];

  /** Whether the last event applied may have let waiting work fit. */
  grew = false;

  add(streamId: string, type: string, data: unknown): RecordedHcnEvent {
    const revision = (this.revisions.get(streamId) ?? -1) + 1;
    this.revisions.set(streamId, revision);
    const at = BigInt(++this.position);
    const event = {
      type,
      data,
      eventId: uuid(1000 + this.position),
      streamId,
      revision,
      position: { commit: at, prepare: at },
      recordedAt: AT,
      metadata: {},
    } as unknown as RecordedHcnEvent;
    this.grew = this.fold.apply(event);
    this.recorded.push(event);
    return event;
  }

  node(cpuCores: number): void {
    const registered: NodeEvent = {
      type: 'NodeRegistered',
      data: {
        nodeId: NODE,
        domainId: 'local',
        hostname: 'h',
        arch: 'x64',
        os: 'linux',
        cpuCores,
        memoryBytes: 8 * GiB,
        diskBytes: 100 * GiB,
        accelerators: 0,
        devices: [],
        labels: {},
        isHead: false,
        agentVersion: '0.1.0',
      },
    };
    this.add(`node-${NODE}`, registered.type, registered.data);
  }

  child(siteId: string, freeCpuMillis: number, regions: string[] = ['eu-west']): void {
    this.add(`site-${siteId}`, 'SiteRegistered', {
      siteId,
      name: siteId,
      url: `http://127.0.0.1:1/${siteId}`,
      regions,
      joinTokenDigest: 'a'.repeat(64),
      credentialDigest: 'b'.repeat(64),
      registeredAt: AT,
    });
    this.summary(siteId, freeCpuMillis, regions);
  }

  summary(siteId: string, freeCpuMillis: number, regions: string[] = ['eu-west']): void {
    const summary: SiteSummary = {
      seq: 1,
      generatedAt: AT,
      domains: [{ domainId: 'd', online: 1, offline: 0 }],
      nodes: { online: 1, offline: 0 },
      cpuMillis: { total: 8000, free: freeCpuMillis },
      memoryBytes: { total: 16 * GiB, free: 16 * GiB },
      accelerators: [],
      tags: ['runtime:process', 'zone=a'],
      regions,
    };
    this.add(`sitesummary-${siteId}`, 'SiteSummaryRecorded', { siteId, receivedAt: AT, summary });
  }
}

const request = (cpuMillis: number, more: Partial<PlacementRequest> = {}): PlacementRequest => ({
  workloadId: uuid(77),
  instance: 0,
  resources: { cpuMillis, memoryBytes: GiB, accelerators: 0 },
  constraints: NO_CONSTRAINTS,
  ...more,
});
const setup = (peers: string[] = []) => ({ order: DEFAULT_FEDERATION_ORDER, peers });

describe('federated decision: local first, then child sites, then peers', () => {
  it('places on a local node when one fits, the decision as without federation', () => {
    const log = new Log();
    log.node(8);
    log.child('child-a', 8000);
    const across = log.fold.decideAcross(request(1000), setup());
    expect(across.site).toBeUndefined();
    expect(across.decision).toEqual(decide(log.fold.schedulingIndex(), request(1000)));
    expect(across.federation).toEqual({
      order: ['local', 'children', 'peers'],
      children: [['child-a', 0]],
      peers: [],
    });
  });

  it('delegates to the child site whose summary fits when the local tree is full; the local rejection is kept', () => {
    const log = new Log();
    log.node(2);
    log.child('child-a', 1000);
    log.child('child-b', 6000);
    const across = log.fold.decideAcross(request(4000), setup(['peer-p']));
    expect(across.site).toEqual({ siteId: 'child-b', relation: 'child' });
    const d = across.decision;
    expect(d.outcome === 'placed' && d.nodeId).toBe('site:child-b');
    expect(d.hops.map((h) => [h.scope, h.chosen])).toEqual([
      ['federation-children', 'child-b'],
      ['child-b', 'site:child-b'],
    ]);
    expect(d.rejections.map((r) => r.scope)).toEqual([null]); // the local root
    const a = d.hops[0].candidates.find((c) => c.id === 'child-a');
    expect(a).toMatchObject({ accepted: false, reason: 'FILTER.DOMAIN_INSUFFICIENT_CPU' });
    expect(across.federation?.children).toEqual([
      ['child-a', 0],
      ['child-b', 0],
    ]);
  });

  it('leaves out sites that refused the instance, offline children and then falls back to a peer', () => {
    const log = new Log();
    log.node(2);
    log.child('child-a', 8000);
    log.child('child-b', 8000);
    log.add('site-child-b', 'SiteWentOffline', { siteId: 'child-b', lastSeenAt: AT, ttlSeconds: 30 });
    const across = log.fold.decideAcross(
      request(4000, { excludeNodes: ['site:child-a'] }),
      setup(['peer-p']),
    );
    expect(across.site).toEqual({ siteId: 'peer-p', relation: 'peer' });
    expect(across.federation?.children).toEqual([['child-a', 0]]); // child-b offline: no candidate
    // the local root, child-a (descended into, its only candidate left out), the children tier
    expect(across.decision.rejections.map((r) => r.scope)).toEqual([null, 'child-a', 'federation-children']);
  });

  it('judges sites by region with the existing filters; nothing fits anywhere: unschedulable with every rejection', () => {
    const log = new Log();
    log.node(2);
    log.child('child-a', 8000, ['us-east']);
    const inEu = {
      ...NO_CONSTRAINTS,
      regions: { affinity: ['eu-west'], antiAffinity: [] },
    };
    const across = log.fold.decideAcross(request(4000, { constraints: inEu }), setup());
    expect(across.site).toBeUndefined();
    expect(across.decision.outcome).toBe('unschedulable');
    expect(across.decision.rejections.map((r) => r.scope)).toEqual([null, 'federation-children']);
    const d = across.decision;
    expect(d.outcome === 'unschedulable' && d.reasons['FILTER.REGION_AFFINITY']).toBeGreaterThan(0);
  });

  it('with no other site, decides on the local tree alone and records no federation basis', () => {
    const log = new Log();
    log.node(2);
    const across = log.fold.decideAcross(request(4000), setup());
    expect(across.federation).toBeUndefined();
    expect(across.decision).toEqual(decide(log.fold.schedulingIndex(), request(4000)));
  });

  it('replays a recorded federated decision exactly on a fold of the same log; a newer summary is told apart', () => {
    const log = new Log();
    log.node(2);
    log.child('child-a', 1000);
    log.child('child-b', 6000);
    const recorded = log.fold.decideAcross(request(4000), setup(['peer-p']));
    const replayFold = new ClusterFold();
    for (const e of log.recorded) replayFold.apply(e);
    const replayed = replayFold.replayAcross(request(4000), recorded.federation!);
    expect(replayed).toEqual(recorded);
    log.summary('child-b', 0);
    expect(log.fold.replayAcross(request(4000), recorded.federation!)).toBeUndefined();
  });

  it('tells when waiting work may fit at a child: first summary, more free room, its return; not less room', () => {
    const log = new Log();
    log.child('child-a', 1000);
    expect(log.grew).toBe(true);
    log.summary('child-a', 500);
    expect(log.grew).toBe(false);
    log.summary('child-a', 2000);
    expect(log.grew).toBe(true);
    log.add('site-child-a', 'SiteWentOffline', { siteId: 'child-a', lastSeenAt: AT, ttlSeconds: 30 });
    expect(log.grew).toBe(false);
    log.add('site-child-a', 'SiteCameOnline', { siteId: 'child-a', seenAt: AT });
    expect(log.grew).toBe(true);
  });

  it("counts delegations made since a child's last summary against its free room until the next summary", () => {
    const log = new Log();
    log.node(2);
    log.child('child-a', 6000);
    const delegated = (allocationId: string) =>
      log.add(`workload-${uuid(77)}`, 'AllocationDelegated', {
        workloadId: uuid(77),
        allocationId,
        instance: 0,
        attempt: 0,
        generation: 1,
        siteId: 'child-a',
        relation: 'child',
        resources: { cpuMillis: 4000, memoryBytes: GiB, accelerators: 0 },
        decision: { hops: [], topK: 5 },
      });
    delegated(uuid(501));
    expect(log.fold.decideAcross(request(4000), setup()).site).toBeUndefined(); // 6 - 4 cores left: 2
    log.add(`workload-${uuid(77)}`, 'DelegationRejected', {
      workloadId: uuid(77),
      instance: 0,
      attempt: 0,
      scope: 'site:child-a',
      reason: 'unschedulable',
      detail: 'no node fits',
      candidates: [],
      allocationId: uuid(501),
      siteId: 'child-a',
    });
    expect(log.grew).toBe(true); // the refused delegation's room is back
    expect(log.fold.decideAcross(request(4000), setup()).site?.siteId).toBe('child-a');
    delegated(uuid(502));
    log.summary('child-a', 6000); // the next summary counts what it took
    expect(log.fold.decideAcross(request(4000), setup()).site?.siteId).toBe('child-a');
  });
});
