import { PostgresEventStore } from '@hcn/eventstore';
import {
  AppProcess,
  TestDatabase,
  createTestDatabase,
  describeWithKafka,
  describeWithPostgres,
  doublePlacements,
  eventually,
  eventuallyExpect,
  orphanReservations,
  overcommits,
  readWholeLog,
  testKafkaBrokers,
} from '@hcn/testing';
import { workloadStream } from '@hcn/contracts';
import { freePort } from '../services/ports';

const ADMIN = { authorization: 'Bearer e2e-admin-token-0123456789', 'content-type': 'application/json' };
const GiB = 2 ** 30;
const LOG_TYPES = [
  'NodeRegistered',
  'NodeReregistered',
  'Capacity',
  'AllocationPlaced',
  'WorkloadSubmitted',
  'WorkloadUnschedulable',
];

/**
 * Invariants 1 and 5 with two hub processes on one PostgreSQL event store and one Kafka broker: no node is ever
 * overcommitted under concurrent scheduling, and a hub killed mid-burst leaves no workload stuck or placed twice.
 */
describeWithPostgres('two hubs scheduling at once (processes, real Kafka + PostgreSQL)', () => {
  describeWithKafka('with a broker', () => {
    let db: TestDatabase;
    let store: PostgresEventStore;
    const hubs: Array<{ process: AppProcess; url: string }> = [];

    async function post(url: string, path: string, body: unknown): Promise<{ status: number; body: any }> {
      const response = await fetch(`${url}${path}`, {
        method: 'POST',
        headers: ADMIN,
        body: JSON.stringify(body),
      });
      return { status: response.status, body: await response.json() };
    }

    async function startHub(name: string, port: number): Promise<{ process: AppProcess; url: string }> {
      const url = `http://127.0.0.1:${port}`;
      const process = new AppProcess(name, 'apps/hub/src/main.ts', {
        DATABASE_URL: db.url,
        KAFKA_BROKERS: testKafkaBrokers().join(','),
        HCN_HTTP_PORT: String(port),
        HCN_JOIN_TOKEN: 'e2e-join-token-0123456789',
        HCN_AGENT_SECRET: 'e2e-agent-secret-0123456789-0123456789',
        HCN_ADMIN_TOKEN: 'e2e-admin-token-0123456789',
        HCN_NODE_TTL_SECONDS: '3600',
        HCN_CLAIM_DELAY_MS: '1000',
      }).start();
      await eventually(
        'hub ready',
        async () => (await fetch(`${url}/readyz`).catch(() => undefined))?.status === 200,
        60000,
      );
      return { process, url };
    }

    const submission = (i: number, cpuMillis: number) => ({
      name: `w-${i}`,
      command: 'true',
      resources: { cpuMillis, memoryBytes: GiB },
      idempotencyKey: `burst-${i}`,
    });

    async function outcomes(ids: string[]): Promise<Map<string, string[]>> {
      const result = new Map<string, string[]>();
      for (const id of ids)
        result.set(
          id,
          (await store.readStream(workloadStream(id))).map((e) => e.type),
        );
      return result;
    }

    beforeAll(async () => {
      db = await createTestDatabase('twohubs');
      store = await PostgresEventStore.connect({ connectionString: db.url });
      const ports = [await freePort(), await freePort()];
      hubs.push(await startHub('hub-a', ports[0]), await startHub('hub-b', ports[1]));
      for (let i = 0; i < 20; i++) {
        const body = {
          joinToken: 'e2e-join-token-0123456789',
          domainId: `site-${i % 4}`,
          hostname: `n-${i}`,
          arch: 'x64',
          os: 'linux',
          cpuCores: 4,
          memoryBytes: 16 * GiB,
          diskBytes: GiB,
          agentVersion: 'e2e',
        };
        expect((await post(hubs[i % 2].url, '/v1/agents/register', body)).status).toBe(200);
      }
    }, 120000);

    afterAll(async () => {
      await Promise.all(hubs.map((h) => h.process.kill('SIGKILL')));
      await store?.close();
      await db?.drop();
    });

    it('200 concurrent submissions over 20 nodes on two hubs, half of them in batches: the log never shows a node over its capacity', async () => {
      // 200 x 500 millicores = 100 cores asked of 80: some must be refused capacity, none overcommitted. 100 go
      // one per request, 100 in ten batches of ten (POST /v1/workloads/batch), all at once on both hubs.
      const singles = Array.from({ length: 100 }, (_, i) =>
        post(hubs[i % 2].url, '/v1/workloads', submission(i, 500)),
      );
      const batches = Array.from({ length: 10 }, (_, b) =>
        post(hubs[b % 2].url, '/v1/workloads/batch', {
          workloads: Array.from({ length: 10 }, (_, i) => submission(100 + b * 10 + i, 500)),
        }),
      );
      const batchResults = await Promise.all(batches);
      expect(batchResults.filter((r) => r.status !== 201).map((r) => [r.status, r.body.code])).toEqual([]);
      const results = [
        ...(await Promise.all(singles)),
        ...batchResults.flatMap((r) =>
          (r.body.workloads as Array<{ workloadId: string }>).map((w) => ({ status: 201, body: w })),
        ),
      ];
      // A submission whose reservations lost every race to the other hub is left to the saga's next pass.
      const ended = async () =>
        [...(await outcomes(results.map((r) => r.body.workloadId))).values()].map((t) =>
          t.includes('AllocationPlaced')
            ? 'placed'
            : t.includes('WorkloadUnschedulable')
              ? 'unschedulable'
              : 'stuck',
        );
      await eventuallyExpect(async () => expect((await ended()).filter((s) => s === 'stuck')).toEqual([]));
      const log = await readWholeLog(store, LOG_TYPES);
      expect(overcommits(log)).toEqual([]);
      expect(doublePlacements(log)).toEqual([]);
      const placed = log.filter((e) => e.type === 'AllocationPlaced').length;
      expect(placed).toBe(160); // exactly the capacity: 20 nodes x 8 slots
      await eventuallyExpect(async () =>
        expect(orphanReservations(await readWholeLog(store, LOG_TYPES))).toEqual([]),
      );
    }, 120000);

    it('a hub killed with SIGKILL mid-burst (single submissions and batches) leaves every workload placed or unschedulable, none placed twice', async () => {
      const [a, b] = hubs;
      const keys = Array.from({ length: 60 }, (_, i) => 1000 + i);
      let sent = 0;
      const singles = keys.map(async (i) => {
        const target = i % 2 === 0 ? a : b;
        const first = await post(target.url, '/v1/workloads', submission(i, 0)).catch(() => undefined);
        sent++;
        if (first && first.status < 300) return [first.body.workloadId as string];
        // the client retries with the same idempotency key on the surviving hub
        const retry = await post(b.url, '/v1/workloads', submission(i, 0));
        expect(retry.status).toBeLessThan(300);
        return [retry.body.workloadId as string];
      });
      const batches = Array.from({ length: 6 }, async (_, n) => {
        const body = { workloads: Array.from({ length: 10 }, (_, i) => submission(1100 + n * 10 + i, 0)) };
        const first = await post(n % 2 === 0 ? a.url : b.url, '/v1/workloads/batch', body).catch(
          () => undefined,
        );
        sent += 10;
        // a batch cut short is sent again whole, with the same keys, to the surviving hub
        const answer = first && first.status < 300 ? first : await post(b.url, '/v1/workloads/batch', body);
        expect(answer.status).toBeLessThan(300);
        return (answer.body.workloads as Array<{ workloadId: string }>).map((w) => w.workloadId);
      });
      const burst = [...singles, ...batches];
      await eventually('a third of the burst sent', () => sent >= 40, 60000);
      await a.process.kill('SIGKILL');
      const ids = (await Promise.all(burst)).flat();
      expect(new Set(ids).size).toBe(120);
      a.process.start();
      await eventually(
        'hub a back',
        async () => (await fetch(`${a.url}/readyz`).catch(() => undefined))?.status === 200,
        60000,
      );
      await eventuallyExpect(async () => {
        const states = await outcomes(ids);
        const stuck = [...states].filter(
          ([, t]) => !t.includes('AllocationPlaced') && !t.includes('WorkloadUnschedulable'),
        );
        expect(stuck).toEqual([]);
      }, 30000);
      const log = await readWholeLog(store, LOG_TYPES);
      expect(doublePlacements(log)).toEqual([]);
      expect(overcommits(log)).toEqual([]);
      await eventuallyExpect(
        async () => expect(orphanReservations(await readWholeLog(store, LOG_TYPES))).toEqual([]),
        30000,
      );
    }, 180000);
  });
});
