import type { RecordedHcnEvent } from '@hcn/contracts';
import { DomainSummaryRow, NodeStateRow, openReadModels } from '@hcn/read-models';
import { TestDatabase, createTestDatabase, describeWithPostgres } from '@hcn/testing';
import type { DataSource } from 'typeorm';
import type { ChangeSet } from '../projection';
import { refreshDomainSummaries } from './domain-summary';
import { nodeStateProjection } from './node-state.projection';

const id = (n: number): string => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const GiB = 2 ** 30;
let position = 0;

function recorded(
  type: string,
  streamId: string,
  data: unknown,
  at = new Date(1_700_000_000_000 + position * 10),
) {
  position++;
  return {
    eventId: `10000000-0000-4000-8000-${String(position).padStart(12, '0')}`,
    type,
    streamId,
    revision: position,
    position: { commit: BigInt(position), prepare: BigInt(position) },
    recordedAt: at.toISOString(),
    data,
    metadata: {
      correlationId: 's',
      causationId: 's',
      actor: { kind: 'system', id: 's' },
      occurredAt: at.toISOString(),
    },
  } as unknown as RecordedHcnEvent;
}

const registered = (n: number, domainId: string) =>
  recorded('NodeRegistered', `node-${id(n)}`, {
    nodeId: id(n),
    domainId,
    hostname: `h${n}`,
    arch: 'x64',
    os: 'linux',
    cpuCores: 3 + n,
    memoryBytes: (8 + n) * GiB,
    diskBytes: 100 * GiB,
    labels: {},
    isHead: false,
    agentVersion: 'spec',
  });

const heartbeat = (n: number, seq: number, cpuUsage: number, memoryUsedBytes: number) =>
  recorded('NodeHeartbeatRecorded', `heartbeat-${id(n)}`, {
    nodeId: id(n),
    seq,
    sentAt: new Date().toISOString(),
    usage: { cpuUsage, memoryUsedBytes, diskUsedBytes: 0 },
    runningAllocations: [],
  });

const changeSet = (): ChangeSet => ({
  domains: new Set(),
  nodes: new Set(),
  workloads: new Set(),
  namespaces: new Set(),
  taskqueues: new Set(),
  sites: new Set(),
});

/** A generator of usages that do not land on whole millicores (so rounding is exercised). */
function usages(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

describeWithPostgres('heartbeats move domain usage by exact deltas (real PostgreSQL)', () => {
  let database: TestDatabase;
  let db: DataSource;
  const apply = (events: RecordedHcnEvent[], changes = changeSet()) =>
    db.transaction((tx) => nodeStateProjection.apply(tx, events, changes)).then(() => changes);
  const summaries = () => db.getRepository(DomainSummaryRow).find({ order: { domainId: 'ASC' } });

  beforeAll(async () => {
    database = await createTestDatabase('p_hbusage');
    db = await openReadModels(database.url, 2);
  });
  afterAll(async () => {
    await db.destroy();
    await database.drop();
  });

  it('keeps available CPU and memory equal to a full recompute across many heartbeat-only batches', async () => {
    await apply([1, 2, 3, 4, 5, 6].map((n) => registered(n, n <= 3 ? 'east' : 'west')));
    const next = usages(7);
    for (let seq = 1; seq <= 25; seq++) {
      const nodes = [1, 2, 3, 4, 5, 6].filter((n) => (n + seq) % 3 !== 0); // not every node in every batch
      const changes = await apply(
        nodes.map((n) => heartbeat(n, seq, next(), Math.floor(next() * (8 + n) * GiB))),
      );
      expect([...changes.domains].sort()).toEqual(
        [...new Set(nodes.map((n) => (n <= 3 ? 'east' : 'west')))].sort(),
      );
    }
    // A replayed heartbeat (older seq) changes nothing, delta included.
    const before = await summaries();
    await apply([heartbeat(1, 3, 0.99, 0)]);
    expect(await summaries()).toEqual(before);
    const incremental = await summaries();
    await db.transaction((tx) => refreshDomainSummaries(tx, new Set(['east', 'west']), true));
    const recomputed = await summaries();
    expect(incremental).toEqual(recomputed);
    const nodes = await db.getRepository(NodeStateRow).find();
    const expected = (domain: string) =>
      nodes
        .filter((n) => n.domainId === domain)
        .reduce((sum, n) => sum + Math.round(n.cpuCores * (1 - (n.cpuUsage ?? 0)) * 1000), 0);
    expect(incremental.map((d) => [d.domainId, d.cpuMillisAvailable])).toEqual([
      ['east', String(expected('east'))],
      ['west', String(expected('west'))],
    ]);
  });

  it('counts only online, not draining nodes, and a lifecycle event in the batch recomputes the domain', async () => {
    const drain = recorded('NodeDrainRequested', `node-${id(1)}`, { nodeId: id(1) });
    await apply([drain, heartbeat(1, 100, 0.5, GiB), heartbeat(4, 100, 0.5, GiB)]);
    const offline = recorded('NodeWentOffline', `node-${id(5)}`, {
      nodeId: id(5),
      lastSeenAt: null,
      ttlSeconds: 5,
    });
    await apply([offline]);
    await apply([heartbeat(1, 101, 0.1, 0), heartbeat(5, 101, 0.1, 0), heartbeat(2, 101, 0.2, GiB)]);
    const incremental = await summaries();
    await db.transaction((tx) => refreshDomainSummaries(tx, new Set(['east', 'west']), true));
    expect(incremental).toEqual(await summaries());
    const east = incremental.find((d) => d.domainId === 'east')!;
    const nodes = await db.getRepository(NodeStateRow).findBy({ domainId: 'east' });
    const usable = nodes.filter((n) => n.status === 'online' && !n.draining);
    expect(usable.map((n) => n.nodeId).sort()).toEqual([id(2), id(3)]);
    expect(Number(east.cpuMillisAvailable)).toBe(
      usable.reduce((sum, n) => sum + Math.round(n.cpuCores * (1 - (n.cpuUsage ?? 0)) * 1000), 0),
    );
  });
});
