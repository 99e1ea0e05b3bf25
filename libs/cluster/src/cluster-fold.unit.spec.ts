import type { DomainDefinition, RecordedHcnEvent } from '@hcn/contracts';
import type { NodeEvent } from '@hcn/domain';
import { ClusterFold } from './cluster-fold';

const GiB = 2 ** 30;
const uuid = (n: number) => `00000000-0000-4000-8000-${n.toString(16).padStart(12, '0')}`;
const [nodeA, nodeB] = [uuid(1), uuid(2)];
const [alloc1, alloc2, work1] = [uuid(11), uuid(12), uuid(21)];

const gpu = (index: number) => ({
  index,
  vendor: 'nvidia' as const,
  model: 'A100-80G',
  memoryBytes: 80 * GiB,
  numaNode: null,
  health: 100,
  interconnect: [],
});

const registered = (nodeId: string, domainId = 'site-a', gpus = 0): NodeEvent => ({
  type: 'NodeRegistered',
  data: {
    nodeId,
    domainId,
    hostname: 'h',
    arch: 'x64',
    os: 'linux',
    cpuCores: 8,
    memoryBytes: 32 * GiB,
    diskBytes: 100 * GiB,
    accelerators: gpus,
    devices: Array.from({ length: gpus }, (_, i) => gpu(i)),
    labels: {},
    isHead: false,
    agentVersion: '0.1.0',
  },
});
const reserved = (nodeId: string, allocationId: string, cpuMillis = 1000, gpus = 0): NodeEvent => ({
  type: 'CapacityReserved',
  data: {
    nodeId,
    allocationId,
    workloadId: work1,
    resources: { cpuMillis, memoryBytes: GiB, accelerators: gpus },
    ...(gpus ? { devices: [{ vendor: 'nvidia' as const, index: 0 }] } : {}),
  },
});
const released = (nodeId: string, allocationId: string): NodeEvent => ({
  type: 'CapacityReleased',
  data: { nodeId, allocationId, reason: 'done' },
});
const wentOffline = (nodeId: string): NodeEvent => ({
  type: 'NodeWentOffline',
  data: { nodeId, lastSeenAt: '2026-11-22T00:00:00.000Z', ttlSeconds: 15 },
});
const cameOnline = (nodeId: string): NodeEvent => ({
  type: 'NodeCameOnline',
  data: { nodeId, seenAt: '2026-11-22T00:01:00.000Z' },
});
const domain = (domainId: string, parentId: string | null, policy = 'round-robin'): DomainDefinition =>
  ({ domainId, parentId, region: null, labels: {}, policy, headNodeId: null }) as DomainDefinition;

/** A log: events recorded with their stream revision and a growing position. */
class Log {
  private readonly revisions = new Map<string, number>();
  private position = 0;

  record(streamId: string, body: { type: string; data: unknown }): RecordedHcnEvent {
    const revision = (this.revisions.get(streamId) ?? -1) + 1;
    this.revisions.set(streamId, revision);
    const at = BigInt(++this.position);
    return {
      ...body,
      eventId: uuid(1000 + this.position),
      streamId,
      revision,
      position: { commit: at, prepare: at },
      recordedAt: '2026-11-22T00:00:00.000Z',
      metadata: {},
    } as unknown as RecordedHcnEvent;
  }

  node(event: NodeEvent): RecordedHcnEvent {
    return this.record(`node-${event.data.nodeId}`, event);
  }
}

/** Given these events applied, the fold. */
function given(...events: Array<NodeEvent | DomainDefinition>): { fold: ClusterFold; log: Log } {
  const fold = new ClusterFold();
  const log = new Log();
  for (const e of events) {
    fold.apply(
      'type' in e ? log.node(e) : log.record(`domain-${e.domainId}`, { type: 'DomainDefined', data: e }),
    );
  }
  return { fold, log };
}

const viewOf = (fold: ClusterFold, nodeId: string) => fold.snapshot().nodes.find((n) => n.nodeId === nodeId);

describe('ClusterFold', () => {
  it('given a registration, then the node is an online member of its domain (an undefined domain is a root)', () => {
    const { fold } = given(registered(nodeA));
    expect(viewOf(fold, nodeA)).toMatchObject({ domainId: 'site-a', online: true, draining: false });
    expect(fold.snapshot().domains).toEqual([
      expect.objectContaining({ domainId: 'site-a', parentId: null }),
    ]);
    expect(fold.revisionOf(nodeA)).toBe(0);
  });

  it('given a node gone offline, when it comes online again, then the index sees it online', () => {
    const { fold, log } = given(registered(nodeA), wentOffline(nodeA));
    expect(viewOf(fold, nodeA)?.online).toBe(false);
    fold.apply(log.node(cameOnline(nodeA)));
    expect(fold.schedulingIndex().nodeView(nodeA)?.online).toBe(true);
  });

  it('given registrations, then it lists every node with its state', () => {
    const { fold, log } = given(registered(nodeA), registered(nodeB), wentOffline(nodeA));
    fold.apply(log.node({ type: 'NodeDeregistered', data: { nodeId: nodeB, reason: 'gone' } }));
    expect([...fold.nodeStates()].map(([id, state]) => [id, state.status])).toEqual([
      [nodeA, 'offline'],
      [nodeB, 'deregistered'],
    ]);
  });

  it('given a drained node, then it is draining; deregistered, it leaves the snapshot', () => {
    const { fold, log } = given(registered(nodeA), {
      type: 'NodeDrainRequested',
      data: { nodeId: nodeA, reason: 'r' },
    });
    expect(viewOf(fold, nodeA)?.draining).toBe(true);
    fold.apply(log.node({ type: 'NodeDeregistered', data: { nodeId: nodeA, reason: 'gone' } }));
    expect(viewOf(fold, nodeA)).toBeUndefined();
  });

  it('given a reservation, then the index, the holders and the round-robin counters carry it', () => {
    const { fold } = given(
      domain('root', null),
      domain('site-a', 'root'),
      registered(nodeA),
      reserved(nodeA, alloc1),
    );
    fold.schedulingIndex();
    expect(viewOf(fold, nodeA)?.allocated.cpuMillis).toBe(1000);
    expect(fold.reservationsOf(alloc1)).toEqual([nodeA]);
    expect(fold.heldOn(nodeA)).toEqual([{ allocationId: alloc1, workloadId: work1 }]);
    expect([...fold.heldReservations()]).toEqual([
      { allocationId: alloc1, workloadId: work1, nodeIds: [nodeA] },
    ]);
    expect(fold.snapshot().domains.map((d) => [d.domainId, d.placements])).toEqual([
      ['root', 1],
      ['site-a', 1],
    ]);
  });

  it('given a reservation, when it is released, then the index (kept in place) and the holders forget it', () => {
    const { fold, log } = given(registered(nodeA), reserved(nodeA, alloc1));
    const index = fold.schedulingIndex();
    fold.apply(log.node(released(nodeA, alloc1)));
    expect(fold.schedulingIndex()).toBe(index);
    expect(index.nodeView(nodeA)?.allocated.cpuMillis).toBe(0);
    expect(fold.reservationsOf(alloc1)).toEqual([]);
    expect([...fold.heldReservations()]).toEqual([]);
  });

  it('given a node with devices, then device views and limits follow its registration and grants', () => {
    const { fold } = given(registered(nodeA, 'site-a', 2), reserved(nodeA, alloc1, 1000, 1));
    expect(viewOf(fold, nodeA)?.devices?.map((d) => [d.index, d.wholeHeld])).toEqual([
      [0, true],
      [1, false],
    ]);
    expect(fold.deviceLimits().get('nvidia')).toEqual({ memoryBytes: 80 * GiB, perNode: 2 });
  });

  it('given domains, then parents and definitions are known and an updated policy wins', () => {
    const { fold } = given(domain('root', null), domain('site-a', 'root'));
    fold.defineDomain(domain('site-a', 'root', 'spread'));
    expect(fold.domainParents()).toEqual(
      new Map([
        ['root', null],
        ['site-a', 'root'],
      ]),
    );
    expect(fold.domain('site-a')?.policy).toBe('spread');
  });

  it('given an event applied, when the log delivers it again, then nothing changes (keyed by revision)', () => {
    const fold = new ClusterFold();
    const log = new Log();
    const events = [registered(nodeA), reserved(nodeA, alloc1)].map((e) => log.node(e));
    events.forEach((e) => fold.apply(e));
    events.forEach((e) => fold.apply(e));
    expect(viewOf(fold, nodeA)?.allocated.cpuMillis).toBe(1000);
    expect(fold.snapshot().domains[0].placements).toBe(1);
  });

  describe('applyAppended', () => {
    it('given the stream as applied, when the append follows it, then it applies and the log later skips it', () => {
      const { fold, log } = given(registered(nodeA));
      expect(fold.applyAppended([reserved(nodeA, alloc1)], 1)).toBe(true);
      expect(viewOf(fold, nodeA)?.allocated.cpuMillis).toBe(1000);
      fold.apply(log.node(reserved(nodeA, alloc1)));
      expect(fold.snapshot().domains[0].placements).toBe(1);
    });

    it('given an unseen event before it, when the append comes, then it is left to the log, applied in order', () => {
      const { fold, log } = given(registered(nodeA), registered(nodeB));
      const other = log.node(reserved(nodeA, alloc2, 500)); // another hub's, not delivered yet
      const ours = log.node(reserved(nodeA, alloc1));
      expect(fold.applyAppended([reserved(nodeA, alloc1)], ours.revision)).toBe(false);
      expect(viewOf(fold, nodeA)?.allocated.cpuMillis).toBe(0);
      fold.apply(other);
      fold.apply(ours);
      expect(viewOf(fold, nodeA)?.allocated.cpuMillis).toBe(1500);
      expect(fold.reservationsOf(alloc1)).toEqual([nodeA]);
    });

    it('given the log ahead of the append, when the append comes late, then it is skipped', () => {
      const { fold } = given(registered(nodeA), reserved(nodeA, alloc1));
      expect(fold.applyAppended([reserved(nodeA, alloc1)], 1)).toBe(false);
      expect(fold.snapshot().domains[0].placements).toBe(1);
    });
  });
});
