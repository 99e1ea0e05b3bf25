import { PostgresEventStore } from '@hcn/eventstore';
import {
  AppProcess,
  TcpProxy,
  TestDatabase,
  createTestDatabase,
  describeWithKafka,
  describeWithPostgres,
  eventually,
  sleep,
  testKafkaBrokers,
  testKafkaProxy,
} from '@hcn/testing';
import { heartbeatStream, nodeStream } from '@hcn/contracts';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../services/ports';

const TTL = 4;
const INTERVAL = 1;
const JOIN_TOKEN = 'e2e-join-token-0123456789';
const ADMIN_TOKEN = 'e2e-admin-token-0123456789';
const AUTH = { authorization: `Bearer ${ADMIN_TOKEN}` };

interface NodeView {
  nodeId: string;
  hostname: string;
  status: string;
  domainId: string;
}

/**
 * Distributed mode end to end: hub, projector and three agents in two domains as separate OS processes over
 * real Kafka and real PostgreSQL.
 */
describeWithPostgres('node lifecycle, distributed (processes, real Kafka + PostgreSQL)', () => {
  describeWithKafka('with a broker', () => {
    let db: TestDatabase;
    let dataRoot: string;
    let hubUrl: string;
    let proxy: TcpProxy;
    const processes: AppProcess[] = [];

    const agentDir = (name: string): string => join(dataRoot, name);
    const nodes = async (): Promise<NodeView[]> =>
      (
        (await (await fetch(`${hubUrl}/v1/nodes?limit=100`, { headers: AUTH })).json()) as {
          items: NodeView[];
        }
      ).items;

    function agent(name: string, domain: string, brokers: string): AppProcess {
      const p = new AppProcess(name, 'apps/agent/src/main.ts', {
        HCN_HUB_URL: hubUrl,
        HCN_JOIN_TOKEN: JOIN_TOKEN,
        HCN_DOMAIN: domain,
        HCN_DATA_DIR: agentDir(name),
        HCN_LABELS: `name=${name}`,
        KAFKA_BROKERS: brokers,
      });
      processes.push(p);
      return p;
    }

    beforeAll(async () => {
      const proxyPorts = testKafkaProxy();
      if (!proxyPorts)
        throw new Error(
          'the test broker has no proxied listener (HCN_TEST_KAFKA_PROXY); run through npm test',
        );
      proxy = new TcpProxy(proxyPorts.listen, proxyPorts.target);
      await proxy.open();
      db = await createTestDatabase('e2e');
      dataRoot = mkdtempSync(join(tmpdir(), 'hcn-e2e-'));
      const port = await freePort();
      hubUrl = `http://127.0.0.1:${port}`;
      const common = { DATABASE_URL: db.url, KAFKA_BROKERS: testKafkaBrokers().join(',') };
      const hub = new AppProcess('hub', 'apps/hub/src/main.ts', {
        ...common,
        HCN_HTTP_PORT: String(port),
        HCN_JOIN_TOKEN: JOIN_TOKEN,
        HCN_AGENT_SECRET: 'e2e-agent-secret-0123456789-0123456789',
        HCN_ADMIN_TOKEN: ADMIN_TOKEN,
        HCN_NODE_TTL_SECONDS: String(TTL),
        HCN_HEARTBEAT_INTERVAL_SECONDS: String(INTERVAL),
        HCN_LIVENESS_SWEEP_MS: '250',
      });
      processes.push(hub.start(), new AppProcess('projector', 'apps/projector/src/main.ts', common).start());
      await eventually(
        'hub ready',
        async () => (await fetch(`${hubUrl}/readyz`).catch(() => undefined))?.status === 200,
        60000,
      );
    }, 90000);

    afterAll(async () => {
      await Promise.all(processes.map((p) => p.kill('SIGKILL')));
      await proxy?.cut();
      rmSync(dataRoot, { recursive: true, force: true });
      await db?.drop();
    });

    it('runs three agents in two domains; a killed agent goes offline within TTL + interval; restarted, it keeps its id', async () => {
      const direct = testKafkaBrokers().join(',');
      const proxied = `127.0.0.1:${testKafkaProxy()!.listen}`;
      const a1 = agent('a1', 'east', direct).start();
      agent('a2', 'east', direct).start();
      agent('a3', 'west', proxied).start();
      await eventually(
        'three agents online',
        async () => (await nodes()).filter((n) => n.status === 'online').length === 3,
        60000,
      );
      const { items: domains } = (await (await fetch(`${hubUrl}/v1/domains`, { headers: AUTH })).json()) as {
        items: Array<{ domainId: string; nodes: { online: number } }>;
      };
      expect(domains.map((d) => [d.domainId, d.nodes.online])).toEqual([
        ['east', 2],
        ['west', 1],
      ]);

      const a1Id = readFileSync(join(agentDir('a1'), 'node-id'), 'utf8').trim();
      await a1.kill('SIGKILL');
      const killedAt = Date.now();
      await eventually(
        'a1 offline',
        async () => (await nodes()).find((n) => n.nodeId === a1Id)?.status === 'offline',
        30000,
      );
      // Detection time from the log (when NodeWentOffline was recorded), not including projection lag.
      const store = await PostgresEventStore.connect({ connectionString: db.url });
      const offline = (await store.readStream(nodeStream(a1Id))).find((e) => e.type === 'NodeWentOffline');
      await store.close();
      const detectedAfterMs = Date.parse(offline!.recordedAt) - killedAt;
      expect(detectedAfterMs).toBeLessThanOrEqual((TTL + INTERVAL) * 1000 + 1000);

      a1.start();
      await eventually(
        'a1 online again',
        async () => (await nodes()).find((n) => n.nodeId === a1Id)?.status === 'online',
        60000,
      );
      expect(readFileSync(join(agentDir('a1'), 'node-id'), 'utf8').trim()).toBe(a1Id);
      expect((await nodes()).map((n) => n.nodeId)).toHaveLength(3); // the restart made no new node
    }, 180000);

    it('an agent cut off the broker keeps its reports and delivers every one, in order, when the link returns', async () => {
      const a3Id = readFileSync(join(agentDir('a3'), 'node-id'), 'utf8').trim();
      const store = await PostgresEventStore.connect({ connectionString: db.url });
      try {
        const seqs = async (): Promise<number[]> =>
          (await store.readStream(heartbeatStream(a3Id))).map((e) => (e.data as { seq: number }).seq);
        await eventually('a3 heartbeating', async () => (await seqs()).length >= 2, 30000);
        await proxy.cut();
        const beforeCut = (await seqs()).length;
        await sleep((TTL + 2) * 1000);
        await eventually(
          'a3 offline while cut off',
          async () => (await nodes()).find((n) => n.nodeId === a3Id)?.status === 'offline',
          15000,
        );
        const duringCut = (await seqs()).length;
        expect(duringCut - beforeCut).toBeLessThanOrEqual(1);
        await proxy.open();
        await eventually(
          'a3 online again',
          async () => (await nodes()).find((n) => n.nodeId === a3Id)?.status === 'online',
          60000,
        );
        await eventually(
          'the reports made while cut off arrived',
          async () => (await seqs()).length >= duringCut + TTL + 1,
          60000,
        );
        const all = await seqs();
        expect(all).toEqual(Array.from({ length: all.length }, (_, i) => all[0] + i));
      } finally {
        await store.close();
      }
    }, 180000);

    it('a remote stop makes the agent exit cleanly', async () => {
      const a2 = processes.find((p) => p.name === 'a2')!;
      const a2Id = readFileSync(join(agentDir('a2'), 'node-id'), 'utf8').trim();
      const response = await fetch(`${hubUrl}/v1/nodes/${a2Id}/stop`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...AUTH },
        body: JSON.stringify({ reason: 'e2e' }),
      });
      expect(response.status).toBe(202);
      const code = await Promise.race([a2.exited(), sleep(30000).then(() => 'timeout')]);
      expect(code).toBe(0);
      expect(a2.output).toContain('stop requested by the hub: e2e');
    }, 60000);
  });
});
