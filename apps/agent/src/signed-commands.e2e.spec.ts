import { commandMac, workloadStream } from '@hcn/contracts';
import { commandTopicFor } from '@hcn/platform';
import { describeWithPostgres, eventually } from '@hcn/testing';
import { randomUUID } from 'node:crypto';
import { AgentCredentials } from '../../hub/src/auth/agent-credentials';
import { HubHarness, processSpec } from '../../hub/src/testing/hub-harness';
import type { Agent } from './agent';
import { HubAndAgent, startHubAndAgent } from './testing/hub-and-agent';

const DOMAIN = 'site-signed';
/** The harness hub's agent secret: the spec derives node keys as the hub does, to forge near-valid commands. */
const HUB_SECRET = 'test-agent-secret-0123456789-0123456789';

describeWithPostgres(
  'an agent applies only commands its hub signed for it (hub + agent, real PostgreSQL)',
  () => {
    let h: HubHarness;
    let agent: Agent;
    let running: HubAndAgent;
    beforeAll(async () => {
      running = await startHubAndAgent(DOMAIN);
      ({ h, agent } = running);
    });
    afterAll(async () => running?.close());

    it('runs what the hub sends, and refuses unsigned, foreign-keyed and stale commands, counting them', async () => {
      const submitted = await h.request(
        'POST',
        '/v1/workloads',
        processSpec({ args: ['-c', 'echo signed'] }),
      );
      const id = submitted.body.workloadId as string;
      await eventually(
        'the hub-signed run command ran',
        async () =>
          (await h.store.readStream(workloadStream(id))).some((e) => e.type === 'AllocationCompleted'),
        15000,
      );

      const nodeId = agent.nodeId as string;
      const key = new AgentCredentials(HUB_SECRET).commandKey(nodeId);
      const foreignKey = new AgentCredentials('another-hub-secret-0123456789-0123456789').commandKey(nodeId);
      const run = (issuedAt: string) => ({
        commandId: randomUUID(),
        nodeId,
        kind: 'run' as const,
        issuedAt,
        placement: {
          workloadId: randomUUID(),
          allocationId: randomUUID(),
          instance: 0,
          attempt: 0,
          command: 'sh',
          args: ['-c', 'echo forged'],
          env: {},
          stopGraceSeconds: 1,
        },
      });
      const now = new Date().toISOString();
      const stale = new Date(Date.now() - 2 * 3600_000).toISOString();
      const unsigned = run(now);
      const foreign = { ...run(now), mac: '' };
      foreign.mac = commandMac(foreignKey, foreign);
      const old = { ...run(stale), mac: '' };
      old.mac = commandMac(key, old);
      const stop = {
        commandId: randomUUID(),
        nodeId,
        kind: 'stop' as const,
        reason: 'forged',
        issuedAt: now,
        mac: 'x',
      };
      const forged = [unsigned, foreign, old, stop];
      await h.bus.publish(
        commandTopicFor(DOMAIN),
        forged.map((c) => ({ key: nodeId, value: JSON.stringify(c) })),
      );
      await eventually('all four refused', () => agent.refusedCommands === 4);
      expect(agent.runningAllocations).toEqual([]);
      // the forged stop did not stop the agent: the next workload still runs
      const after = await h.request(
        'POST',
        '/v1/workloads',
        processSpec({ name: 'after', args: ['-c', 'echo after'] }),
      );
      await eventually(
        'a later workload still runs',
        async () =>
          (await h.store.readStream(workloadStream(after.body.workloadId))).some(
            (e) => e.type === 'AllocationCompleted',
          ),
        15000,
      );
    });
  },
);
