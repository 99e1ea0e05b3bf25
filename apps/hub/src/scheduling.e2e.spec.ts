import { AGENT_REPORTS_TOPIC } from '@hcn/platform';
import { INSUFFICIENT_CPU, LABEL_MISMATCH } from '@hcn/scheduling';
import { expandDecision, workloadStream } from '@hcn/contracts';
import { describeWithPostgres, eventuallyExpect } from '@hcn/testing';
import { signedReport, HubHarness, processSpec, registerNode, startHubHarness } from './testing/hub-harness';

const GiB = 2 ** 30;

describeWithPostgres('hierarchical scheduling (hub, real PostgreSQL)', () => {
  describe('a three-level tree', () => {
    let h: HubHarness;
    const nodes: Record<string, string> = {};
    beforeAll(async () => {
      h = await startHubHarness({ HCN_NODE_TTL_SECONDS: '600' });
      for (const [domainId, parentId, region, policy = 'least-loaded'] of [
        ['global', null, null],
        ['region-1', 'global', 'cn-north', 'locality'],
        ['region-2', 'global', 'cn-south'],
        ['site-a', 'region-1', null],
        ['site-b', 'region-1', null],
        ['site-c', 'region-2', null],
      ]) {
        const response = await h.request('POST', '/v1/domains', { domainId, parentId, region, policy });
        expect(response.status).toBe(201);
      }
      // site-a is preferred (data locality) and looks able to fit in aggregate: one node has the label, another
      // the capacity; but no single node has both.
      for (const [name, domainId, cores, gpu] of [
        ['a1', 'site-a', 64, 'v100'],
        ['a2', 'site-a', 1, 'a100'],
        ['b1', 'site-b', 8, 'a100'],
        ['c1', 'site-c', 4, 'a100'],
      ] as const) {
        const node = await registerNode(h, {
          hostname: name,
          domainId,
          cpuCores: cores,
          memoryBytes: cores * 4 * GiB,
          labels: { gpu },
        });
        nodes[name] = node.nodeId;
      }
    });
    afterAll(async () => h?.close());

    it('records the rejection of the first chosen site and the fallback to its sibling', async () => {
      const spec = processSpec({
        resources: { cpuMillis: 2000, memoryBytes: 4 * GiB },
        constraints: {
          labels: [{ key: 'gpu', op: '=', value: 'a100' }],
          regions: { affinity: ['cn-north'] },
          preferDomains: ['site-a'],
        },
      });
      const response = await h.request('POST', '/v1/workloads', spec);
      expect(response.status).toBe(201);
      const events = await h.store.readStream(workloadStream(response.body.workloadId));
      // one event: the placement, with its hops and rejections inside (long form: expandDecision)
      expect(events.map((e) => e.type)).toEqual(['WorkloadSubmitted', 'AllocationPlaced']);
      const placedEvent = events[1];
      if (placedEvent.type !== 'AllocationPlaced' || !placedEvent.data.decision)
        throw new Error('no decision');
      const { hops, rejections: rejected } = expandDecision(placedEvent.data.decision);
      expect(rejected.map((r) => r.scope)).toEqual(['site-a']);
      expect(rejected[0].candidates.map((c) => [c.id, c.accepted, c.reason])).toEqual(
        expect.arrayContaining([
          [nodes.a1, false, LABEL_MISMATCH],
          [nodes.a2, false, INSUFFICIENT_CPU],
        ]),
      );
      expect(hops.map((d) => [d.fromScope, d.to])).toEqual([
        [null, 'global'],
        ['global', 'region-1'],
        ['region-1', 'site-b'],
        ['site-b', nodes.b1],
      ]);
      const siteScores = hops[2].candidates.map((c: any) => [c.id, c.accepted]);
      expect(siteScores).toEqual(
        expect.arrayContaining([
          ['site-a', false],
          ['site-b', true],
        ]),
      );
      const region2 = hops[1].candidates.find((c) => c.id === 'region-2');
      expect(region2).toMatchObject({ accepted: false });
      expect(placedEvent.data).toMatchObject({ nodeId: nodes.b1, domainId: 'site-b' });
      const audit = await h.request('GET', `/v1/workloads/${response.body.workloadId}`);
      expect(audit.body.delegations[0].steps.map((s: any) => s.type)).toEqual([
        'WorkloadDelegated',
        'WorkloadDelegated',
        'WorkloadDelegated',
        'WorkloadDelegated',
        'DelegationRejected',
        'AllocationPlaced',
      ]);
    });

    it('marks a workload unschedulable with reason counts and places it when capacity appears', async () => {
      const spec = processSpec({ name: 'huge', resources: { cpuMillis: 100_000, memoryBytes: GiB } });
      const response = await h.request('POST', '/v1/workloads', spec);
      expect(response.body.status).toBe('unschedulable');
      const events = await h.store.readStream(workloadStream(response.body.workloadId));
      const verdict = events.find((e) => e.type === 'WorkloadUnschedulable')?.data;
      expect(Object.keys(verdict!.reasons).length).toBeGreaterThan(0);
      const big = await registerNode(h, {
        hostname: 'big',
        domainId: 'site-c',
        cpuCores: 128,
        memoryBytes: 256 * GiB,
      });
      await eventuallyExpect(async () => {
        const placed = (await h.store.readStream(workloadStream(response.body.workloadId))).find(
          (e) => e.type === 'AllocationPlaced',
        );
        expect(placed?.data).toMatchObject({ nodeId: big.nodeId });
      });
    });
  });

  describe('node loss', () => {
    let h: HubHarness;
    let beat: NodeJS.Timeout | undefined;
    beforeAll(
      async () => (h = await startHubHarness({ HCN_NODE_TTL_SECONDS: '1.5', HCN_LIVENESS_SWEEP_MS: '100' })),
    );
    afterAll(async () => {
      if (beat) clearInterval(beat);
      await h?.close();
    });

    it('turns allocations of an offline node into AllocationLost and places them again on the same workload stream', async () => {
      const doomed = await registerNode(h, { hostname: 'doomed', domainId: 'edge' });
      const spec = processSpec({ restartPolicy: { policy: 'on-failure', maxRetries: 3, backoffSeconds: 0 } });
      const response = await h.request('POST', '/v1/workloads', spec);
      expect(response.status).toBe(201);
      const survivor = await registerNode(h, { hostname: 'survivor', domainId: 'edge' });
      let seq = 0;
      beat = setInterval(() => {
        const report = {
          kind: 'heartbeat',
          nodeId: survivor.nodeId,
          domainId: 'edge',
          seq: seq++,
          sentAt: new Date().toISOString(),
          usage: { cpuUsage: 0.1, memoryUsedBytes: 1, diskUsedBytes: 1 },
        };
        void h.bus.publish(AGENT_REPORTS_TOPIC, [
          { key: survivor.nodeId, value: signedReport(survivor, report) },
        ]);
      }, 300);
      await eventuallyExpect(async () => {
        const events = await h.store.readStream(workloadStream(response.body.workloadId));
        const types = events.map((e) => e.type);
        expect(types).toContain('AllocationLost');
        const placements = events.filter((e) => e.type === 'AllocationPlaced').map((e) => e.data);
        expect(placements.map((p) => [p.nodeId, p.attempt])).toEqual([
          [doomed.nodeId, 0],
          [survivor.nodeId, 1],
        ]);
      }, 15000);
    }, 30000);
  });
});
