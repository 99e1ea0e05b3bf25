import { workloadStream } from '@hcn/contracts';
import { describeWithPostgres } from '@hcn/testing';
import { CommandBus } from '@nestjs/cqrs';
import type { Principal } from '../../auth/principal';
import { HubHarness, processSpec, registerNode, startHubHarness } from '../../testing/hub-harness';
import { StopWorkloadsCommand, StopWorkloadsResult } from './stop-workloads.command';

const CORE = { cpuMillis: 1000, memoryBytes: 2 ** 20 };
const teamA: Principal = { name: 'team-a', role: 'operator', namespaces: ['team-a'] };

describeWithPostgres('StopWorkloadsCommand: many stops, one append (hub + real PostgreSQL)', () => {
  let h: HubHarness;
  let stop: (principal: Principal, ids: string[]) => Promise<StopWorkloadsResult>;
  beforeAll(async () => {
    h = await startHubHarness({ HCN_NODE_TTL_SECONDS: '600' });
    await registerNode(h, { hostname: 'stop-1', cpuCores: 8, memoryBytes: 2 ** 34 });
    const bus = h.hub.app.get(CommandBus);
    stop = (principal, ids) => bus.execute(new StopWorkloadsCommand(principal, ids, 'test stop'));
  });
  afterAll(async () => h?.close());

  async function submit(namespace: string, count: number): Promise<string[]> {
    const workloads = Array.from({ length: count }, (_, i) =>
      processSpec({ namespace, name: `${namespace}-${i}`, resources: CORE }),
    );
    const response = await h.request('POST', '/v1/workloads/batch', { workloads });
    expect(response.status).toBe(201);
    return response.body.workloads.map((w: { workloadId: string }) => w.workloadId);
  }
  const typesOf = async (id: string) => (await h.store.readStream(workloadStream(id))).map((e) => e.type);

  it('records each visible stop in one transaction, as a single stop would, and names the rest', async () => {
    const mine = await submit('team-a', 3);
    const theirs = await submit('team-b', 1);
    const missing = '00000000-0000-4000-8000-000000000001';
    const result = await stop(teamA, [...mine, mine[0], ...theirs, missing]);
    expect([...result.stopped].sort()).toEqual([...mine].sort());
    expect([...result.notFound].sort()).toEqual([...theirs, missing].sort());
    expect(result.refused).toEqual([]);
    const stops = await Promise.all(
      mine.map(async (id) =>
        (await h.store.readStream(workloadStream(id))).find((e) => e.type === 'WorkloadStopRequested'),
      ),
    );
    expect(stops.map((e) => e?.metadata.correlationId)).toEqual(mine); // correlated by workload
    // one appendMany: the three streams' stops share one transaction (the position's commit part)
    const positions = stops.map((e) => Number(e?.position?.commit ?? -1));
    expect(new Set(positions).size).toBe(1);
    for (const id of mine) expect(await typesOf(id)).toContain('AllocationStopRequested');
    expect(await typesOf(theirs[0])).not.toContain('WorkloadStopRequested');
  });

  it('asks again without writing twice: a workload already stopping is counted, not stopped again', async () => {
    const [id] = await submit('team-a', 1);
    await stop(teamA, [id]);
    const before = (await h.store.readStream(workloadStream(id))).length;
    const again = await stop(teamA, [id]);
    expect([again.stopped, again.refused]).toEqual([[id], []]);
    expect((await h.store.readStream(workloadStream(id))).length).toBe(before);
  });
});
