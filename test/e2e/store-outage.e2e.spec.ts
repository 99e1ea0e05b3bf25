import { heartbeatStream, nodeStream, workloadStream } from '@hcn/contracts';
import { Consumer, DLQ_HEADERS, IncomingMessage, KafkaMessageBus } from '@hcn/messaging';
import { AGENT_REPORTS_TOPIC, freePort } from '@hcn/platform';
import {
  describeWithKafka,
  describeWithPostgres,
  eventuallyExpect,
  sleep,
  testKafkaBrokers,
} from '@hcn/testing';
import { Admin, Kafka, logLevel } from 'kafkajs';
import { randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { REPORTS_GROUP } from '../../apps/hub/src/ingest/agent-reports.consumer';
import {
  HubHarness,
  processSpec,
  registerNode,
  signedReport,
  startHubHarness,
} from '../../apps/hub/src/testing/hub-harness';
import {
  PostgresServer,
  postgresDataFolder,
  startPostgresServer,
  stopPostgresServer,
} from '../support/postgres-server';

/** Node TTL and start deadline in seconds: compressed from 15 and 60. */
const NODE_TTL_S = 3;
const START_DEADLINE_S = 3;
/** The Kafka consumer session timeout: compressed from 10 s (6 s is the broker's smallest by default). */
const SESSION_TIMEOUT_MS = 6000;
/** How long the store stays down: 6 session timeouts, 12 node TTLs, 6 start deadlines (3 with their resend). */
const OUTAGE_MS = 36_000;
/** A 6-minute outage compressed: each timeout of the hub that a long outage could run out, made small. */
const COMPRESSED = {
  HCN_KAFKA_SESSION_TIMEOUT_MS: String(SESSION_TIMEOUT_MS),
  HCN_NODE_TTL_SECONDS: String(NODE_TTL_S),
  HCN_HEARTBEAT_INTERVAL_SECONDS: '0.5',
  HCN_START_DEADLINE_SECONDS: String(START_DEADLINE_S),
  HCN_START_RESENDS: '1',
};
/** The reports consumer's longest pause between two attempts at a batch (REPORTS_RETRY_BACKOFF_CAP_MS). */
const RETRY_CAP_MS = 5000;

type Node = { nodeId: string; commandKey: string };
type Group = { state: string; members: string[] };

const USAGE = { cpuUsage: 0.2, memoryUsedBytes: 1, diskUsedBytes: 1 };

/** Simulated agents publishing signed reports as real ones do (key = node id, one sequence per agent). */
class Agents {
  /** The sequence numbers of each node's valid heartbeats, in order. */
  readonly heartbeats = new Map<string, number[]>();
  private readonly running = new Map<string, string[]>();
  private readonly seqs = new Map<string, number>();

  constructor(
    private readonly bus: KafkaMessageBus,
    readonly nodes: Node[],
  ) {}

  /** One heartbeat of every node. */
  async heartbeat(): Promise<void> {
    for (const node of this.nodes) {
      const seq = this.next(node);
      const runningAllocations = this.running.get(node.nodeId) ?? [];
      await this.send(node, node, { kind: 'heartbeat', seq, usage: USAGE, runningAllocations });
      this.heartbeats.set(node.nodeId, [...(this.heartbeats.get(node.nodeId) ?? []), seq]);
    }
  }

  /** The node reports its allocation started, and lists it in its heartbeats from then on. */
  async started(node: Node, workloadId: string, allocationId: string): Promise<void> {
    const at = new Date().toISOString();
    const seq = this.next(node);
    await this.send(node, node, { kind: 'allocation', seq, workloadId, allocationId, status: 'started', at });
    this.running.set(node.nodeId, [allocationId]);
  }

  /** Two reports bad in themselves: signed with another node's key, and off the schema. */
  async bad(node: Node, other: Node): Promise<void> {
    await this.send(node, other, { kind: 'heartbeat', seq: 1_000_000, usage: USAGE });
    await this.send(node, node, { kind: 'heartbeat', seq: 1_000_001, usage: 'lots' });
  }

  private next(node: Node): number {
    const seq = (this.seqs.get(node.nodeId) ?? 0) + 1;
    this.seqs.set(node.nodeId, seq);
    return seq;
  }

  private async send(node: Node, signer: Node, body: Record<string, unknown>): Promise<void> {
    const report = { nodeId: node.nodeId, domainId: 'site-a', sentAt: new Date().toISOString(), ...body };
    await this.bus.publish(AGENT_REPORTS_TOPIC, [{ key: node.nodeId, value: signedReport(signer, report) }]);
  }
}

/** The members of the hubs' report consumer group, as the broker sees them. */
async function reportGroup(admin: Admin): Promise<Group> {
  const { groups } = await admin.describeGroups([REPORTS_GROUP]);
  return { state: groups[0].state, members: groups[0].members.map((m) => m.memberId) };
}

/** The event types of a stream. */
async function typesOf(h: HubHarness, streamId: string): Promise<string[]> {
  return (await h.store.readStream(streamId)).map((e) => e.type);
}

/** Submits a workload and waits for its placement (whose start nobody has reported yet). */
async function placedWorkload(
  h: HubHarness,
): Promise<{ workloadId: string; allocationId: string; nodeId: string }> {
  const workloadId = (await h.request('POST', '/v1/workloads', processSpec({ name: 'placed' }))).body
    .workloadId;
  let placed: { allocationId: string; nodeId: string } | undefined;
  await eventuallyExpect(async () => {
    const events = await h.store.readStream(workloadStream(workloadId));
    placed = events.find((e) => e.type === 'AllocationPlaced')?.data as typeof placed;
    expect(placed).toBeDefined();
  }, 20000);
  return { workloadId, ...(placed as { allocationId: string; nodeId: string }) };
}

/** Samples the report group and readiness every 2 s until `untilMs`. */
async function watchOutage(h: HubHarness, admin: Admin, untilMs: number) {
  const groups: Group[] = [];
  const readiness: number[] = [];
  while (Date.now() < untilMs) {
    await sleep(2000);
    groups.push(await reportGroup(admin));
    readiness.push((await h.request('GET', '/readyz')).status);
  }
  return { groups, readiness };
}

/** Heartbeats every 500 ms (the configured interval) until stopped. */
function heartbeating(agents: Agents): { stop(): Promise<void> } {
  let beating = true;
  const loop = (async () => {
    while (beating) await Promise.all([agents.heartbeat(), sleep(500)]);
  })();
  return { stop: () => ((beating = false), loop) };
}

/** Collects the dead-letter topic of the reports (from its beginning: other suites' too). */
async function deadLetters(bus: KafkaMessageBus): Promise<{ consumer: Consumer; dead: IncomingMessage[] }> {
  const dead: IncomingMessage[] = [];
  const consumer = await bus.consume({
    groupId: `spec-outage-dlq-${randomUUID()}`,
    topics: [`${AGENT_REPORTS_TOPIC}.dlq`],
    fromBeginning: true,
    handleBatch: async (m) => void dead.push(...m),
  });
  return { consumer, dead };
}

describeWithPostgres(
  'store down 6 minutes (compressed by configuration) with no valid report dead-lettered',
  () => {
    describeWithKafka('a hub on the real Kafka bus, PostgreSQL its own server', () => {
      let pg: PostgresServer | undefined;
      let h: HubHarness | undefined;
      let agentBus: KafkaMessageBus;
      let admin: Admin;
      let dataDir: string;
      let port: number;
      const suiteUrl = process.env.HCN_TEST_DATABASE_URL;

      beforeAll(async () => {
        dataDir = postgresDataFolder('hcn-store-outage-');
        port = await freePort();
        pg = await startPostgresServer(join(dataDir, 'pg'), port);
        process.env.HCN_TEST_DATABASE_URL = pg.url;
        agentBus = new KafkaMessageBus({ brokers: testKafkaBrokers(), clientId: 'spec-agents' });
        admin = new Kafka({ brokers: testKafkaBrokers(), logLevel: logLevel.NOTHING }).admin();
        await admin.connect();
        // the hub opens its Kafka bus from its configuration, as its main does
        h = await startHubHarness({ ...COMPRESSED, KAFKA_BROKERS: testKafkaBrokers().join(',') });
      }, 90000);

      afterAll(async () => {
        process.env.HCN_TEST_DATABASE_URL = suiteUrl;
        await h?.close().catch(() => undefined);
        await Promise.all([agentBus?.close(), admin?.disconnect()]);
        await stopPostgresServer(pg);
        if (dataDir) rmSync(dataDir, { recursive: true, force: true });
      });

      it('keeps its group membership, stores every valid report once, dead-letters only the bad ones', async () => {
        const hub = h as HubHarness;
        const spec = { cpuCores: 64, memoryBytes: 256 * 2 ** 30 };
        const nodes = [
          await registerNode(hub, { hostname: 'outage-a', ...spec }),
          await registerNode(hub, { hostname: 'outage-b', ...spec }),
        ];
        const agents = new Agents(agentBus, nodes);
        const dlq = await deadLetters(agentBus);
        const beat = heartbeating(agents);
        const placed = await placedWorkload(hub); // its start is reported only while the store is down
        await eventuallyExpect(async () => {
          for (const node of nodes)
            expect((await hub.store.readStream(heartbeatStream(node.nodeId))).length).toBeGreaterThan(1);
          expect(await reportGroup(admin)).toMatchObject({ state: 'Stable', members: [expect.any(String)] });
        }, 30000);
        const before = await reportGroup(admin);

        const down = Date.now();
        await stopPostgresServer(pg);
        const placedOn = nodes.find((n) => n.nodeId === placed.nodeId) as Node;
        await agents.started(placedOn, placed.workloadId, placed.allocationId);
        await agents.bad(nodes[0], nodes[1]);
        const outage = await watchOutage(hub, admin, down + OUTAGE_MS);
        await agents.bad(nodes[1], nodes[0]);
        const up = Date.now();
        pg = await startPostgresServer(join(dataDir, 'pg'), port);
        await eventuallyExpect(
          async () => expect((await hub.request('GET', '/readyz')).status).toBe(200),
          30000,
        );
        await sleep(NODE_TTL_S * 1000 + RETRY_CAP_MS + 1000); // a liveness judgement and a start deadline, due
        await beat.stop();

        // one member all along: never expired, never replaced, the group never rebalanced to another
        expect(outage.groups.length).toBeGreaterThanOrEqual(OUTAGE_MS / 2000 - 2);
        expect([...outage.groups, await reportGroup(admin)]).toEqual(
          outage.groups.map(() => before).concat(before),
        );
        expect(outage.readiness.filter((s) => s !== 503)).toEqual([]);

        // every valid heartbeat stored once, in order; those sent during the outage only after it
        await eventuallyExpect(async () => {
          for (const node of nodes) {
            const events = await hub.store.readStream(heartbeatStream(node.nodeId));
            expect(events.map((e) => (e.data as { seq: number }).seq)).toEqual(
              agents.heartbeats.get(node.nodeId),
            );
          }
        }, 30000);
        const stored = await hub.store.readStream(heartbeatStream(nodes[0].nodeId));
        const sentDuring = stored.filter(
          (e) => Date.parse((e.data as { sentAt: string }).sentAt) > down + 500,
        );
        const heldBack = sentDuring.filter((e) => Date.parse((e.data as { sentAt: string }).sentAt) < up);
        expect(heldBack.length).toBeGreaterThan((OUTAGE_MS / 500) * 0.8);
        expect(heldBack.filter((e) => Date.parse(e.recordedAt) < up)).toEqual([]);

        // the start reported during the outage counts; nothing is judged missing for the outage's silence
        const mine = new Set(nodes.map((n) => n.nodeId));
        await eventuallyExpect(
          () => expect(dlq.dead.filter((m) => mine.has(m.key ?? '')).length).toBe(4),
          20000,
        );
        await sleep(1000); // nothing more comes
        await dlq.consumer.stop();
        const offline = await Promise.all(
          nodes.map(async (n) =>
            (await typesOf(hub, nodeStream(n.nodeId))).filter((t) => t === 'NodeWentOffline'),
          ),
        );
        const deadLettered = dlq.dead
          .filter((m) => mine.has(m.key ?? ''))
          .map((m) => `${m.headers[DLQ_HEADERS.code]} seq ${JSON.parse(m.value.toString()).seq}`);
        const allocation = (await typesOf(hub, workloadStream(placed.workloadId))).filter((t) =>
          t.startsWith('Allocation'),
        );
        expect({ allocation, offline, deadLettered }).toEqual({
          allocation: ['AllocationPlaced', 'AllocationStarted'],
          offline: [[], []],
          deadLettered: expect.arrayContaining([
            'AUTH.INVALID_REPORT_MAC seq 1000000',
            'AUTH.INVALID_REPORT_MAC seq 1000000',
            'REPORT.SCHEMA_INVALID seq 1000001',
            'REPORT.SCHEMA_INVALID seq 1000001',
          ]),
        });
        await eventuallyExpect(() => expect(hub.hub.metrics.subscriptions.failing()).toEqual([]), 30000);
      }, 150000);
    });
  },
);
