import { workloadStream } from '@hcn/contracts';
import { KafkaMessageBus } from '@hcn/messaging';
import {
  AppProcess,
  describeWithContainers,
  describeWithKafka,
  describeWithPostgres,
  eventuallyExpect,
  testContainerEngine,
  testKafkaBrokers,
} from '@hcn/testing';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DockerEngine } from '../../apps/agent/src/containers/docker-engine';
import { LABELS } from '../../apps/agent/src/containers/container-request';
import { HubHarness, TEST_JOIN_TOKEN, startHubHarness } from '../../apps/hub/src/testing/hub-harness';

/**
 * The agent as its own OS process (over Kafka) runs a container; SIGKILL takes the agent down mid-run and a new
 * agent process on the same data directory re-adopts the container: it completes once, nothing is started twice,
 * and its whole output is kept, also when it ended while no agent was there (CI found 'end' lost: the new agent
 * ships the output again from its start in other chunks, and the hub took a chunk at a stored offset as a copy).
 */
describeWithPostgres('an agent killed with SIGKILL re-adopts its running container', () => {
  describeWithKafka('with a broker', () => {
    describeWithContainers('with podman', () => {
      const { socketPath, image } = testContainerEngine();
      const engine = new DockerEngine(socketPath);
      let h: HubHarness;
      let bus: KafkaMessageBus;
      let dataDir: string;
      let agent: AppProcess;

      const startAgent = (): AppProcess =>
        new AppProcess('container-agent', 'apps/agent/src/main.ts', {
          HCN_HUB_URL: h.hub.url,
          HCN_JOIN_TOKEN: TEST_JOIN_TOKEN,
          HCN_DOMAIN: 'site-restart',
          HCN_DATA_DIR: dataDir,
          KAFKA_BROKERS: testKafkaBrokers().join(','),
          DOCKER_HOST: `unix://${socketPath}`,
        }).start();

      beforeAll(async () => {
        dataDir = mkdtempSync(join(tmpdir(), 'hcn-restart-'));
        bus = new KafkaMessageBus({ brokers: testKafkaBrokers(), clientId: 'hcn-restart-spec' });
        h = await startHubHarness({ HCN_NODE_TTL_SECONDS: '60', HCN_HEARTBEAT_INTERVAL_SECONDS: '1' }, bus);
        agent = startAgent();
        // Registered, and subscribed to its command topic (the agent says so once it consumes).
        await eventuallyExpect(() => expect(agent.output).toMatch(/node \S+ running/), 60000);
      }, 90000);

      afterAll(async () => {
        await agent?.kill('SIGKILL');
        await h?.close();
        await bus?.close();
        for (const c of await engine.list([`${LABELS.namespace}=restart`])) await engine.remove(c.id);
        if (dataDir) rmSync(dataDir, { recursive: true, force: true });
      });

      /** Runs a container, kills the agent with SIGKILL mid-run (`away`: waits while it is down), starts a new one. */
      const survives = async (name: string, away: (allocationId: string) => Promise<void>) => {
        const submitted = await h.request('POST', '/v1/workloads', {
          name,
          namespace: 'restart',
          type: 'container',
          image,
          pullPolicy: 'never',
          command: '/bin/sh',
          args: ['-c', 'echo begin; sleep 8; echo end'],
          resources: { cpuMillis: 100, memoryBytes: 32 * 2 ** 20 },
        });
        expect(submitted.status).toBe(201);
        const id = submitted.body.workloadId as string;
        const view = async () => (await h.request('GET', `/v1/workloads/${id}`)).body;
        await eventuallyExpect(async () => expect((await view()).status).toBe('running'), 30000);
        const allocationId = (await view()).allocations[0].allocationId as string;
        await eventuallyExpect(async () => {
          const logs = (await h.request('GET', `/v1/workloads/${id}/logs?lines=10`)).body;
          expect(logs.allocations[0].lines.map((l: { line: string }) => l.line)).toEqual(['begin']);
        }, 20000);
        await agent.kill('SIGKILL');
        await away(allocationId);
        agent = startAgent();
        await eventuallyExpect(async () => expect((await view()).status).toBe('completed'), 60000);
        const types = (await h.store.readStream(workloadStream(id))).map((e) => e.type);
        expect(types.filter((t) => t === 'AllocationPlaced')).toHaveLength(1);
        expect(types.filter((t) => t === 'AllocationStarted')).toHaveLength(1);
        expect(types.filter((t) => t === 'AllocationCompleted')).toHaveLength(1);
        expect(await engine.list([`${LABELS.allocation}=${allocationId}`])).toHaveLength(1);
        // the new agent reads the container's output again from its start: only what was not shipped is added
        await eventuallyExpect(async () => {
          const logs = (await h.request('GET', `/v1/workloads/${id}/logs?lines=10`)).body;
          expect(logs.allocations[0].lines.map((l: { line: string }) => l.line)).toEqual(['begin', 'end']);
        }, 20000);
      };

      it('completes once, with its whole output, and no second container', async () => {
        await survives('survivor', async () => undefined);
      }, 120000);

      it('reports a container that ended while the agent was away, with the output it wrote meanwhile', async () => {
        await survives('ended-meanwhile', async (allocationId) => {
          await eventuallyExpect(async () => {
            const [container] = await engine.list([`${LABELS.allocation}=${allocationId}`]);
            expect(container?.live).toBe(false);
          }, 30000);
        });
      }, 120000);
    });
  });
});
