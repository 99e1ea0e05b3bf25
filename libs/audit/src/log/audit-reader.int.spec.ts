import { NewEvent, deterministicUuid } from '@hcn/contracts';
import { PostgresEventStore } from '@hcn/eventstore';
import { TestDatabase, createTestDatabase, describeWithPostgres } from '@hcn/testing';
import { nodeAt, readComplianceReport } from './audit-reader';
import { scanLog } from './scan';

const N = deterministicUuid('reader-node');
const at = (h: number) => new Date(Date.UTC(2026, 10, 1, h)).toISOString();

function ev(type: string, data: unknown, occurredAt: string, id: string): NewEvent {
  const actor = { kind: 'system' as const, id: 'spec' };
  return {
    eventId: deterministicUuid(id),
    type,
    data,
    metadata: { correlationId: 'c', causationId: 'c', actor, occurredAt },
  };
}

describeWithPostgres('audit reads through the PostgreSQL event store', () => {
  let database: TestDatabase;
  let store: PostgresEventStore;
  beforeAll(async () => {
    database = await createTestDatabase('audit');
    store = await PostgresEventStore.connect({ connectionString: database.url });
    const registration = {
      nodeId: N,
      domainId: 'site',
      hostname: 'n1',
      arch: 'x64',
      os: 'linux',
      cpuCores: 4,
      memoryBytes: 2 ** 33,
      diskBytes: 0,
      labels: {},
      isHead: false,
      agentVersion: 'spec',
    };
    await store.append(`node-${N}`, [ev('NodeRegistered', registration, at(0), 'r')], 'no_stream');
    const usage = { cpuUsage: 0.1, memoryUsedBytes: 1, diskUsedBytes: 0 };
    const beats = Array.from({ length: 3000 }, (_, i) =>
      ev(
        'NodeHeartbeatRecorded',
        { nodeId: N, seq: i, sentAt: at(1), usage, runningAllocations: [] },
        at(1),
        `h${i}`,
      ),
    );
    await store.append(`heartbeat-${N}`, beats, 'any');
    await store.append(
      `node-${N}`,
      [ev('NodeWentOffline', { nodeId: N, lastSeenAt: null, ttlSeconds: 15 }, at(12), 'o')],
      0,
    );
  });
  afterAll(async () => {
    await store?.close();
    await database?.drop();
  });

  it('scans the whole log once, filtered on the server, and stops early when asked', async () => {
    const types: string[] = [];
    const all = await scanLog(store, (e) => void types.push(e.type), {
      filter: { kind: 'eventTypePrefix', prefixes: ['NodeRegistered', 'NodeWentOffline'] },
    });
    expect([all, types]).toEqual([2, ['NodeRegistered', 'NodeWentOffline']]);
    let seen = 0;
    const early = await scanLog(store, () => ++seen < 10);
    expect([early, seen]).toEqual([10, 10]);
  });

  it('reports availability and time-travels the node from the stored streams', async () => {
    const period = { fromMs: Date.parse(at(0)), toMs: Date.parse(at(24)) };
    const report = await readComplianceReport(store, period, '*');
    expect(report.availability).toEqual([
      { domainId: 'site', nodes: 1, trackedHours: 12, onlineHours: 12, uptimePercent: 100 },
    ]);
    expect(report.asOf.events).toBe(2);
    expect((await nodeAt(store, N, Date.parse(at(6)))).status).toBe('online');
    expect((await nodeAt(store, N, Date.parse(at(13)))).status).toBe('offline');
    await expect(nodeAt(store, deterministicUuid('other'), 0)).rejects.toMatchObject({
      code: 'AUDIT.NODE_NOT_FOUND',
    });
  });
});
