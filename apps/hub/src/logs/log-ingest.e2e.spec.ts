import { workloadStream } from '@hcn/contracts';
import { AGENT_REPORTS_TOPIC } from '@hcn/platform';
import { describeWithPostgres, eventuallyExpect } from '@hcn/testing';
import { signedReport, HubHarness, processSpec, registerNode, startHubHarness } from '../testing/hub-harness';

describeWithPostgres('shipped logs (hub, real PostgreSQL, in-process bus)', () => {
  let h: HubHarness;
  let owner: { nodeId: string; commandKey: string };
  let other: { nodeId: string; commandKey: string };
  let workloadId: string;
  let allocationId: string;
  beforeAll(async () => {
    h = await startHubHarness({ HCN_NODE_TTL_SECONDS: '600', HCN_START_DEADLINE_SECONDS: '600' });
    owner = await registerNode(h, { hostname: 'owner', domainId: 'site-logs' });
    other = await registerNode(h, { hostname: 'other', domainId: 'site-elsewhere' });
    const submitted = await h.request(
      'POST',
      '/v1/workloads',
      processSpec({ constraints: { domains: { affinity: ['site-logs'], antiAffinity: [] } } }),
    );
    workloadId = submitted.body.workloadId;
    await eventuallyExpect(async () => {
      const placed = (await h.store.readStream(workloadStream(workloadId))).find(
        (e) => e.type === 'AllocationPlaced',
      );
      expect(placed).toBeDefined();
      allocationId = placed!.data.allocationId;
    });
  });
  afterAll(async () => h?.close());

  const logs = (
    node: { nodeId: string; commandKey: string },
    seq: number,
    chunks: object[],
    domainId: string,
  ) => ({
    key: node.nodeId,
    value: signedReport(node, {
      kind: 'logs',
      nodeId: node.nodeId,
      domainId,
      seq,
      sentAt: new Date().toISOString(),
      workloadId,
      allocationId,
      chunks,
    }),
  });
  const lines = async () =>
    (
      (await h.request('GET', `/v1/workloads/${workloadId}/logs?lines=5000`)).body.allocations[0]?.lines ?? []
    ).map((l: { line: string }) => l.line);

  it("takes an allocation's output only from the node it is placed on", async () => {
    await h.bus.publish(AGENT_REPORTS_TOPIC, [
      logs(other, 1, [{ stream: 'stdout', offset: 0, text: 'forged by another node\n' }], 'site-elsewhere'),
      logs(owner, 1, [{ stream: 'stdout', offset: 0, text: 'real output\n' }], 'site-logs'),
    ]);
    await eventuallyExpect(async () => expect(await lines()).toEqual(['real output']));
    await eventuallyExpect(async () => {
      const metrics = (await h.request('GET', '/metrics')).body as string;
      expect(metrics).toMatch(/hcn_agent_reports_rejected_total\{reason="LOGS.FOREIGN_ALLOCATION"\} 1/);
    });
    expect(await lines()).toEqual(['real output']);
  });

  it('keeps a bounded number of chunks per stream however small they are', async () => {
    const chunks = Array.from({ length: 2100 }, (_, i) => ({ stream: 'stderr', offset: i, text: 'x' }));
    const batches = [];
    for (let i = 0; i < chunks.length; i += 8) batches.push(chunks.slice(i, i + 8));
    await h.bus.publish(
      AGENT_REPORTS_TOPIC,
      batches.map((b, i) => logs(owner, 2 + i, b, 'site-logs')),
    );
    await eventuallyExpect(async () => {
      const [{ count, newest }] = await h.db.query(
        `SELECT count(*)::int AS count, max(byte_offset)::int AS newest FROM allocation_logs WHERE allocation_id = $1 AND stream = 'stderr'`,
        [allocationId],
      );
      expect([count, newest]).toEqual([2048, 2099]);
    }, 20000);
  });
});
