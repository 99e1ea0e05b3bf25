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

  it('adds only the new tail of output shipped again from its start in other chunks (an agent that came back)', async () => {
    const stdout = async () =>
      ((await h.request('GET', `/v1/workloads/${workloadId}/logs?lines=50`)).body.allocations[0]?.lines ?? [])
        .filter((l: { stream: string }) => l.stream === 'stdout')
        .map((l: { line: string }) => l.line);
    // stdout holds 'real output\n' at offset 0; the new life of the agent re-read the container's output whole
    const again = 'real output\nmore ✓ ünïcode\n';
    await h.bus.publish(AGENT_REPORTS_TOPIC, [
      logs(owner, 1000, [{ stream: 'stdout', offset: 0, text: again }], 'site-logs'),
    ]);
    await eventuallyExpect(async () => expect(await stdout()).toEqual(['real output', 'more ✓ ünïcode']));
    // chunks inside what is stored change nothing; one going past its end adds the rest
    const end = Buffer.byteLength(again);
    await h.bus.publish(AGENT_REPORTS_TOPIC, [
      logs(owner, 1001, [{ stream: 'stdout', offset: 5, text: 'output\nmore' }], 'site-logs'),
      logs(owner, 1002, [{ stream: 'stdout', offset: 0, text: again }], 'site-logs'),
      logs(owner, 1003, [{ stream: 'stdout', offset: end - 4, text: 'ode\nlast\n' }], 'site-logs'),
    ]);
    await eventuallyExpect(async () =>
      expect(await stdout()).toEqual(['real output', 'more ✓ ünïcode', 'last']),
    );
    const rows = await h.db.query(
      `SELECT byte_offset::int AS at, text FROM allocation_logs WHERE allocation_id = $1 AND stream = 'stdout' ORDER BY 1`,
      [allocationId],
    );
    expect(rows).toEqual([
      { at: 0, text: 'real output\n' },
      { at: 12, text: 'more ✓ ünïcode\n' },
      { at: end, text: 'last\n' },
    ]);
  });
});
