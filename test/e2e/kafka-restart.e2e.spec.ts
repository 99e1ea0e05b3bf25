import { heartbeatStream, workloadStream } from '@hcn/contracts';
import { DLQ_HEADERS, IncomingMessage, MessageBus } from '@hcn/messaging';
import { AGENT_REPORTS_TOPIC, commandTopicFor, loadKafkaSecurity, openMessageBus } from '@hcn/platform';
import {
  AppProcess,
  OUTPUT_KEPT,
  describeWithKafka,
  describeWithPostgres,
  eventuallyExpect,
  sleep,
} from '@hcn/testing';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HubHarness, TEST_JOIN_TOKEN, startHubHarness } from '../../apps/hub/src/testing/hub-harness';
import { LocalKafka, startKafka } from '../services/kafka';

const DOMAIN = 'kafka-restart';
/** How long the broker stays down: several heartbeat intervals, well under the node TTL. */
const DOWN_MS = 10000;

/**
 * The Kafka broker (its own, not the suite's) is stopped and started again on the same data while two agent
 * processes heartbeat and run process workloads submitted before, during and after the outage: every accepted
 * workload completes, each allocation is placed, started and completed once and run once by an agent, the
 * heartbeats sent while the broker was down arrive after, heartbeats resume, nothing is dead-lettered.
 */
describeWithPostgres('Kafka broker restarted while agents report and commands flow', () => {
  describeWithKafka('with its own broker', () => {
    let kafka: LocalKafka | undefined;
    let bus: MessageBus | undefined;
    let h: HubHarness | undefined;
    let dataRoot: string;
    const agents: AppProcess[] = [];
    const nodeIds: string[] = [];

    beforeAll(async () => {
      dataRoot = mkdtempSync(join(tmpdir(), 'hcn-kafka-restart-'));
      kafka = await startKafka(() => undefined);
      // HCN_KAFKA_CLIENT picks the hub's client here as it does for the agents' processes
      bus = openMessageBus(kafka.brokers, 'hcn-kafka-restart-hub', loadKafkaSecurity('hub', process.env));
      h = await startHubHarness(
        { HCN_NODE_TTL_SECONDS: '30', HCN_HEARTBEAT_INTERVAL_SECONDS: '1', HCN_START_DEADLINE_SECONDS: '90' },
        bus,
      );
      for (const name of ['kr-1', 'kr-2']) {
        const agent = new AppProcess(name, 'apps/agent/src/main.ts', {
          HCN_HUB_URL: h.hub.url,
          HCN_JOIN_TOKEN: TEST_JOIN_TOKEN,
          HCN_DOMAIN: DOMAIN,
          HCN_DATA_DIR: join(dataRoot, name),
          HCN_PROCESS_USER: 'none',
          KAFKA_BROKERS: kafka.brokers.join(','),
        });
        agents.push(agent.start());
      }
      for (const agent of agents) {
        await eventuallyExpect(() => expect(agent.output).toMatch(/node \S+ running/), 60000);
        nodeIds.push(/node (\S+) running/.exec(agent.output)![1]);
      }
    }, 120000);

    afterAll(async () => {
      await Promise.all(agents.map((a) => a.kill('SIGKILL')));
      await h?.close().catch(() => undefined);
      await bus?.close();
      await kafka?.stop();
      if (dataRoot) rmSync(dataRoot, { recursive: true, force: true });
    });

    it('loses nothing and applies nothing twice; heartbeats resume', async () => {
      const hub = h as HubHarness;
      const broker = kafka as LocalKafka;
      const dead: IncomingMessage[] = [];
      const dlq = await hub.bus.consume({
        groupId: 'spec-dlq',
        topics: [`${AGENT_REPORTS_TOPIC}.dlq`, `${commandTopicFor(DOMAIN)}.dlq`],
        fromBeginning: true,
        handleBatch: async (m) => void dead.push(...m),
      });
      const accepted: string[] = [];
      const statuses: number[] = [];
      let running = true;
      const load = (async () => {
        for (let n = 1; running; n++) {
          const r = await hub
            .request('POST', '/v1/workloads', {
              name: `kr-${n}`,
              namespace: 'kafka-restart',
              command: '/bin/sh',
              args: ['-c', 'sleep 2; echo done'],
              resources: { cpuMillis: 100, memoryBytes: 16 * 2 ** 20 },
            })
            .catch(() => undefined);
          statuses.push(r?.status ?? 0);
          if (r?.status === 201) accepted.push(r.body.workloadId);
          await sleep(700);
        }
      })();
      await sleep(4000);
      const downFrom = Date.now();
      await broker.stopBroker();
      await sleep(DOWN_MS);
      const downUntil = Date.now();
      await broker.startBroker();
      const upAt = Date.now();
      await sleep(4000);
      running = false;
      await load;

      expect(statuses.filter((s) => s !== 201)).toEqual([]); // submissions go to the store, not to Kafka
      expect(accepted.length).toBeGreaterThan(10);
      const view = async (id: string) => (await hub.request('GET', `/v1/workloads/${id}`)).body;
      await eventuallyExpect(async () => {
        const states = await Promise.all(accepted.map(async (id) => (await view(id)).status as string));
        expect(states.filter((s) => s !== 'completed')).toEqual([]);
      }, 90000);

      const allocations: string[] = [];
      for (const id of accepted) {
        const events = await hub.store.readStream(workloadStream(id));
        const types = events.map((e) => e.type);
        expect({ id, placed: types.filter((t) => t === 'AllocationPlaced').length }).toEqual({
          id,
          placed: 1,
        });
        expect({ id, started: types.filter((t) => t === 'AllocationStarted').length }).toEqual({
          id,
          started: 1,
        });
        expect({ id, done: types.filter((t) => t === 'AllocationCompleted').length }).toEqual({
          id,
          done: 1,
        });
        const placed = events.find((e) => e.type === 'AllocationPlaced')!.data as { allocationId: string };
        allocations.push(placed.allocationId);
      }
      // each run command applied once, by one agent (a resent or redelivered one is recognised by its id)
      const output = agents.map((a) => a.output).join('\n');
      expect(agents.map((a) => a.output.length < OUTPUT_KEPT)).toEqual(agents.map(() => true)); // the whole output
      const runs = (allocation: string) => output.split(`running allocation ${allocation}:`).length - 1;
      expect(allocations.filter((a) => runs(a) !== 1)).toEqual([]);

      for (const nodeId of nodeIds) {
        await eventuallyExpect(async () => {
          const sent = (await hub.store.readStream(heartbeatStream(nodeId))).map(
            (e) => e.data as { seq: number; sentAt: string },
          );
          const at = sent.map((s) => Date.parse(s.sentAt));
          expect(new Set(sent.map((s) => s.seq)).size).toBe(sent.length);
          // sent while the broker was down, kept in the agent's outbox, delivered after
          expect(at.filter((t) => t > downFrom + 500 && t < downUntil).length).toBeGreaterThan(0);
          // and the agent's heartbeats flow again
          expect(at.filter((t) => t > upAt + 2000).length).toBeGreaterThan(2);
        }, 30000);
        const node = (await hub.request('GET', `/v1/nodes/${nodeId}`)).body;
        expect({ nodeId, status: node.status }).toEqual({ nodeId, status: 'online' });
      }
      expect(hub.hub.metrics.subscriptions.failing()).toEqual([]);
      await sleep(1000); // a dead letter written at the end still reaches the DLQ consumer
      await dlq.stop();
      expect(
        dead.map((m) => `${m.topic}: ${m.headers[DLQ_HEADERS.code]} ${m.headers[DLQ_HEADERS.reason] ?? ''}`),
      ).toEqual([]);
    }, 150000);
  });
});
