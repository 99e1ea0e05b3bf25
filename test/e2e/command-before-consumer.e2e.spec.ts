import { workloadStream } from '@hcn/contracts';
import { KafkaMessageBus } from '@hcn/messaging';
import {
  AppProcess,
  describeWithKafka,
  describeWithPostgres,
  eventuallyExpect,
  testKafkaBrokers,
} from '@hcn/testing';
import { Kafka, logLevel } from 'kafkajs';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  HubHarness,
  TEST_JOIN_TOKEN,
  processSpec,
  startHubHarness,
} from '../../apps/hub/src/testing/hub-harness';

/**
 * A run command published the moment a new agent's node is registered still reaches it: the agent joins its
 * command topic's consumer group before it registers. With the old order the group joined after the registration
 * (and a new group starts at the end of the topic), so a command published in between was skipped. The spec
 * asks the broker, at the moment the registration is appended, whether the group has its member (Kafka's admin
 * API is used here only to observe).
 */
describeWithPostgres('a command published right after a new node registers', () => {
  describeWithKafka('with a broker', () => {
    let h: HubHarness;
    let bus: KafkaMessageBus;
    let dataDir: string;
    let agent: AppProcess | undefined;

    beforeAll(async () => {
      dataDir = mkdtempSync(join(tmpdir(), 'hcn-early-command-'));
      bus = new KafkaMessageBus({ brokers: testKafkaBrokers(), clientId: 'hcn-early-command-spec' });
      h = await startHubHarness({ HCN_NODE_TTL_SECONDS: '60', HCN_HEARTBEAT_INTERVAL_SECONDS: '1' }, bus);
    }, 90000);

    afterAll(async () => {
      await agent?.kill('SIGKILL');
      await h?.close();
      await bus?.close();
      if (dataDir) rmSync(dataDir, { recursive: true, force: true });
    });

    it('starts the workload: the command was not dropped', async () => {
      // The moment the registration is in the log, the agent's consumer group must already have its member.
      const atRegistration: { nodeId: string; members: number }[] = [];
      const admin = new Kafka({ brokers: testKafkaBrokers(), logLevel: logLevel.NOTHING }).admin();
      await admin.connect();
      const watch = h.store.subscribeToAll({
        filter: { kind: 'eventTypePrefix', prefixes: ['NodeRegistered'] },
        onEvent: async (event) => {
          const nodeId = event.streamId.replace(/^node-/, '');
          const { groups } = await admin.describeGroups([`hcn-agent-${nodeId}`]);
          atRegistration.push({ nodeId, members: groups[0]?.members.length ?? 0 });
        },
      });
      agent = new AppProcess('early-agent', 'apps/agent/src/main.ts', {
        HCN_HUB_URL: h.hub.url,
        HCN_JOIN_TOKEN: TEST_JOIN_TOKEN,
        HCN_DOMAIN: 'site-early',
        HCN_DATA_DIR: dataDir,
        KAFKA_BROKERS: testKafkaBrokers().join(','),
      }).start();
      try {
        await eventuallyExpect(() => expect(atRegistration).toHaveLength(1), 60000);
      } finally {
        await watch.stop();
        await admin.disconnect();
      }
      const nodeId = readFileSync(join(dataDir, 'node-id'), 'utf8').trim();
      expect(atRegistration).toEqual([{ nodeId, members: 1 }]);
      const submitted = await h.request(
        'POST',
        '/v1/workloads',
        processSpec({ name: 'early', args: ['-c', 'echo early'] }),
      );
      expect(submitted.status).toBe(201);
      const id = submitted.body.workloadId as string;
      await eventuallyExpect(async () => {
        const types = (await h.store.readStream(workloadStream(id))).map((e) => e.type);
        expect(types).toContain('AllocationCompleted');
      }, 30000);
      const placed = (await h.store.readStream(workloadStream(id))).find(
        (e) => e.type === 'AllocationPlaced',
      );
      expect(placed?.data).toMatchObject({ nodeId });
    }, 120000);
  });
});
