import { workloadStream } from '@hcn/contracts';
import type { IncomingMessage } from '@hcn/messaging';
import { AGENT_REPORTS_TOPIC, commandTopicFor } from '@hcn/platform';
import { describeWithPostgres, eventuallyExpect } from '@hcn/testing';
import { randomUUID } from 'node:crypto';
import { signedReport, HubHarness, processSpec, registerNode, startHubHarness } from '../testing/hub-harness';

const DOMAIN = 'site-reconcile';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Heartbeats against what the hub holds, both ways (reports published as an agent would, real PostgreSQL). */
describeWithPostgres('heartbeats reconciled with the hub (hub, real PostgreSQL, in-process bus)', () => {
  let h: HubHarness;
  let node: { nodeId: string; credential: string; commandKey: string };
  let seq = 0;
  const commands: IncomingMessage[] = [];
  let stopConsumer: () => Promise<void>;

  beforeAll(async () => {
    h = await startHubHarness({ HCN_NODE_TTL_SECONDS: '600', HCN_START_DEADLINE_SECONDS: '1' });
    node = await registerNode(h, { hostname: 'reconciled', domainId: DOMAIN });
    const consumer = await h.bus.consume({
      groupId: 'spec-reconcile',
      topics: [commandTopicFor(DOMAIN)],
      fromBeginning: true,
      handleBatch: async (m) => void commands.push(...m),
    });
    stopConsumer = () => consumer.stop();
  });
  afterAll(async () => {
    await stopConsumer?.();
    await h?.close();
  });

  const publish = (body: Record<string, unknown>) =>
    h.bus.publish(AGENT_REPORTS_TOPIC, [
      {
        key: node.nodeId,
        value: signedReport(node, {
          nodeId: node.nodeId,
          domainId: DOMAIN,
          seq: ++seq,
          sentAt: new Date().toISOString(),
          ...body,
        }),
      },
    ]);
  const heartbeat = (runningAllocations: string[]) =>
    publish({
      kind: 'heartbeat',
      usage: { cpuUsage: 0.1, memoryUsedBytes: 1, diskUsedBytes: 1 },
      runningAllocations,
    });

  async function startedWorkload(): Promise<{ workloadId: string; allocationId: string }> {
    const submitted = await h.request('POST', '/v1/workloads', processSpec());
    const workloadId = submitted.body.workloadId as string;
    let allocationId = '';
    await eventuallyExpect(async () => {
      const placed = (await h.store.readStream(workloadStream(workloadId))).find(
        (e) => e.type === 'AllocationPlaced',
      );
      allocationId = placed?.data.allocationId ?? '';
      expect(allocationId).not.toBe('');
    });
    const at = new Date().toISOString();
    await publish({ kind: 'allocation', workloadId, allocationId, status: 'started', pid: 7, at });
    await eventuallyExpect(async () =>
      expect((await h.store.readStream(workloadStream(workloadId))).map((e) => e.type)).toContain(
        'AllocationStarted',
      ),
    );
    return { workloadId, allocationId };
  }

  it('marks lost what the heartbeats stop listing, keeps what they list, and stops what the hub holds nothing for', async () => {
    const kept = await startedWorkload();
    const dropped = await startedWorkload();
    const stray = randomUUID();
    for (let i = 0; i < 4; i++) {
      await heartbeat([kept.allocationId, stray]);
      await sleep(600);
    }
    await eventuallyExpect(async () => {
      const types = (await h.store.readStream(workloadStream(dropped.workloadId))).map((e) => e.type);
      expect(types).toContain('AllocationLost');
    });
    const lost = (await h.store.readStream(workloadStream(dropped.workloadId))).find(
      (e) => e.type === 'AllocationLost',
    );
    expect(lost!.data.reason).toMatch(/^ALLOCATION\.NOT_RUNNING: node \S+'s heartbeats/);
    expect((await h.store.readStream(workloadStream(kept.workloadId))).map((e) => e.type)).not.toContain(
      'AllocationLost',
    );
    await eventuallyExpect(() => {
      const stops = commands
        .map((m) => JSON.parse(m.value.toString()))
        .filter((c) => c.kind === 'stop-allocation' && c.allocationId === stray);
      expect(stops.length).toBeGreaterThanOrEqual(1);
      expect(stops[0]).toMatchObject({
        nodeId: node.nodeId,
        reason: 'the hub holds nothing for this allocation on this node',
      });
    });
  });
});
