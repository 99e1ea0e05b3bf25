import { DomainSummaryRow, NodeStateRow, openReadModels } from '@hcn/read-models';
import { TestDatabase, createTestDatabase, describeWithPostgres } from '@hcn/testing';
import type { DataSource } from 'typeorm';
import type { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';
import { refreshDomainSummaries } from './domain-summary';

const id = (n: number): string => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const GiB = 2 ** 30;

type NodeRow = QueryDeepPartialEntity<NodeStateRow>;

function node(n: number, status: string, extra: Omit<NodeRow, 'devices'> = {}): NodeRow {
  return {
    nodeId: id(n),
    domainId: 'cap',
    hostname: `n${n}`,
    arch: 'x64',
    os: 'linux',
    cpuCores: 8,
    memoryBytes: String(32 * GiB),
    diskBytes: String(100 * GiB),
    accelerators: 4,
    devices: [],
    labels: {},
    isHead: false,
    agentVersion: 'spec',
    status,
    draining: false,
    stopRequested: false,
    registeredAt: new Date(0),
    lastSeenAt: null,
    cpuUsage: 0.25,
    memoryUsedBytes: String(8 * GiB),
    diskUsedBytes: '0',
    lastHeartbeatSeq: null,
    reservedCpuMillis: '0',
    reservedMemoryBytes: '0',
    reservedAccelerators: 0,
    updatedAt: new Date(0),
    ...extra,
  };
}

describeWithPostgres('domain_summary capacity: total, allocated, allocatable (real PostgreSQL)', () => {
  let database: TestDatabase;
  let db: DataSource;

  beforeAll(async () => {
    database = await createTestDatabase('p_domcap');
    db = await openReadModels(database.url, 2);
    const reserved = (cpu: number, memory: number, accelerators: number) => ({
      reservedCpuMillis: String(cpu),
      reservedMemoryBytes: String(memory),
      reservedAccelerators: accelerators,
    });
    await db.getRepository(NodeStateRow).insert([
      node(1, 'online', reserved(3000, 4 * GiB, 1)),
      // Over-reserved (a reservation outlived a smaller re-registration): allocatable stays at zero, not below.
      node(2, 'online', { ...reserved(10_000, 40 * GiB, 5) }),
      node(3, 'online', { ...reserved(1000, GiB, 1), draining: true }),
      node(4, 'offline', reserved(500, GiB, 0)),
      node(5, 'deregistered', reserved(9000, 9 * GiB, 9)),
    ]);
  });
  afterAll(async () => {
    await db.destroy();
    await database.drop();
  });

  const summary = async (): Promise<DomainSummaryRow> =>
    db.getRepository(DomainSummaryRow).findOneByOrFail({ domainId: 'cap' });

  it('counts allocated capacity on live nodes and allocatable capacity on schedulable ones, idempotently', async () => {
    for (let run = 0; run < 2; run++) {
      await db.transaction((tx) => refreshDomainSummaries(tx, new Set(['cap']), true));
      const row = await summary();
      expect({
        cpuCoresTotal: row.cpuCoresTotal,
        cpuMillisTotal: row.cpuMillisTotal,
        reservedCpuMillis: row.reservedCpuMillis,
        cpuMillisAllocatable: row.cpuMillisAllocatable,
        memoryBytesTotal: row.memoryBytesTotal,
        reservedMemoryBytes: row.reservedMemoryBytes,
        memoryBytesAllocatable: row.memoryBytesAllocatable,
        acceleratorsTotal: row.acceleratorsTotal,
        reservedAccelerators: row.reservedAccelerators,
        acceleratorsAllocatable: row.acceleratorsAllocatable,
      }).toEqual({
        cpuCoresTotal: 32, // nodes 1-4
        cpuMillisTotal: '32000',
        reservedCpuMillis: '14500',
        cpuMillisAllocatable: '5000', // node 1 only: node 2 is over-reserved, 3 draining, 4 offline
        memoryBytesTotal: String(128 * GiB),
        reservedMemoryBytes: String(46 * GiB),
        memoryBytesAllocatable: String(28 * GiB),
        acceleratorsTotal: 16,
        reservedAccelerators: 7,
        acceleratorsAllocatable: 3,
      });
      // Idle capacity from heartbeats is kept as it was: online, not draining nodes, cores x (1 - usage).
      expect([row.cpuMillisAvailable, row.memoryBytesAvailable]).toEqual(['12000', String(48 * GiB)]);
    }
  });

  it('follows a release: allocatable grows back once the reservation is gone', async () => {
    await db.query(
      `UPDATE node_state SET reserved_cpu_millis = 0, reserved_memory_bytes = 0,
      reserved_accelerators = 0 WHERE node_id = $1`,
      [id(1)],
    );
    await db.transaction((tx) => refreshDomainSummaries(tx, new Set(['cap']), false));
    const row = await summary();
    expect([row.cpuMillisAllocatable, row.memoryBytesAllocatable, row.acceleratorsAllocatable]).toEqual([
      '8000',
      String(32 * GiB),
      4,
    ]);
  });
});
