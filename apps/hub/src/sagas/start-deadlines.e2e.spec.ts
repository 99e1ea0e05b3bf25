import { workloadStream } from '@hcn/contracts';
import type { IncomingMessage } from '@hcn/messaging';
import { AGENT_REPORTS_TOPIC, commandTopicFor } from '@hcn/platform';
import { describeWithPostgres, eventuallyExpect } from '@hcn/testing';
import { signedReport, HubHarness, processSpec, registerNode, startHubHarness } from '../testing/hub-harness';

/** A node whose agent never starts what it is sent (its commands go nowhere): only the hub's deadlines act. */
describeWithPostgres('placed allocations that never start (hub, real PostgreSQL, in-process bus)', () => {
  let h: HubHarness;
  const received: IncomingMessage[] = [];
  let stopConsumer: () => Promise<void>;

  beforeAll(async () => {
    h = await startHubHarness({
      HCN_NODE_TTL_SECONDS: '600',
      HCN_START_DEADLINE_SECONDS: '1',
      HCN_START_RESENDS: '2',
    });
    const consumer = await h.bus.consume({
      groupId: 'spec-commands',
      topics: [commandTopicFor('site-deadline'), commandTopicFor('site-prompt')],
      fromBeginning: true,
      handleBatch: async (m) => void received.push(...m),
    });
    stopConsumer = () => consumer.stop();
  });
  afterAll(async () => {
    await stopConsumer?.();
    await h?.close();
  });

  const commandsFor = (allocationId: string) =>
    received
      .map((m) => JSON.parse(m.value.toString()))
      .filter((c) => c.placement?.allocationId === allocationId || c.allocationId === allocationId);

  it('sends the run command again after each deadline, then marks the allocation lost with NOT_STARTED', async () => {
    await registerNode(h, { hostname: 'mute', domainId: 'site-deadline' });
    const submitted = await h.request(
      'POST',
      '/v1/workloads',
      processSpec({ constraints: { domains: { affinity: ['site-deadline'], antiAffinity: [] } } }),
    );
    expect(submitted.status).toBe(201);
    const id = submitted.body.workloadId as string;
    const events = async () => h.store.readStream(workloadStream(id));
    await eventuallyExpect(
      async () => expect((await events()).map((e) => e.type)).toContain('AllocationLost'),
      15000,
    );
    const stored = await events();
    const placed = stored.find((e) => e.type === 'AllocationPlaced');
    const lost = stored.find((e) => e.type === 'AllocationLost');
    const allocationId = placed!.data.allocationId;
    expect(lost!.data.reason).toMatch(
      /^ALLOCATION\.NOT_STARTED: node \S+ reported no start within 1 s of each of 3 run commands$/,
    );
    await eventuallyExpect(() =>
      expect(commandsFor(allocationId).map((c) => c.kind)).toContain('stop-allocation'),
    );
    const runs = commandsFor(allocationId).filter((c) => c.kind === 'run');
    expect(runs).toHaveLength(3);
    expect(new Set(runs.map((c) => c.commandId))).toEqual(new Set([placed?.eventId]));
  });

  it('sends nothing again once the node reports the start in time', async () => {
    const node = await registerNode(h, { hostname: 'prompt', domainId: 'site-prompt' });
    const submitted = await h.request(
      'POST',
      '/v1/workloads',
      processSpec({
        name: 'prompt',
        constraints: { domains: { affinity: ['site-prompt'], antiAffinity: [] } },
      }),
    );
    expect(submitted.status).toBe(201);
    const id = submitted.body.workloadId as string;
    let placed: { allocationId: string; nodeId: string } | undefined;
    await eventuallyExpect(async () => {
      const event = (await h.store.readStream(workloadStream(id))).find((e) => e.type === 'AllocationPlaced');
      placed = event?.data;
      expect(placed).toBeDefined();
    });
    const report = {
      kind: 'allocation',
      nodeId: node.nodeId,
      domainId: 'site-prompt',
      seq: 1,
      sentAt: new Date().toISOString(),
      workloadId: id,
      allocationId: placed?.allocationId,
      status: 'started',
      pid: 4242,
      at: new Date().toISOString(),
    };
    await h.bus.publish(AGENT_REPORTS_TOPIC, [{ key: node.nodeId, value: signedReport(node, report) }]);
    await eventuallyExpect(async () =>
      expect((await h.store.readStream(workloadStream(id))).map((e) => e.type)).toContain(
        'AllocationStarted',
      ),
    );
    await new Promise((r) => setTimeout(r, 3500));
    expect(commandsFor(placed?.allocationId ?? '').filter((c) => c.kind === 'run')).toHaveLength(1);
    expect((await h.store.readStream(workloadStream(id))).map((e) => e.type)).not.toContain('AllocationLost');
  });
});
