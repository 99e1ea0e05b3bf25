import { domainStream, heartbeatStream, nodeStream, quotaStream, workloadStream } from '@hcn/contracts';
import { AGENT_REPORTS_TOPIC } from '@hcn/platform';
import { describeWithPostgres, eventually } from '@hcn/testing';
import {
  signedReport,
  HubHarness,
  processSpec,
  registerNode,
  startHubHarness,
} from '../../testing/hub-harness';

describeWithPostgres(
  'retention: audit-relevant streams never expire, heartbeats do (hub, real PostgreSQL)',
  () => {
    let h: HubHarness;
    let nodeId: string;
    let workloadId: string;
    beforeAll(async () => {
      h = await startHubHarness({ HCN_HEARTBEAT_RETENTION_SECONDS: '3600', HCN_NODE_TTL_SECONDS: '600' });
      const domain = { domainId: 'site-a', parentId: null, region: 'eu', policy: 'least-loaded' };
      expect((await h.request('POST', '/v1/domains', domain)).status).toBe(201);
      const node = await registerNode(h, { hostname: 'kept-1' });
      nodeId = node.nodeId;
      const usage = { cpuUsage: 0.5, memoryUsedBytes: 1, diskUsedBytes: 1 };
      const report = {
        kind: 'heartbeat',
        nodeId,
        domainId: 'site-a',
        seq: 1,
        usage,
      };
      await h.bus.publish(AGENT_REPORTS_TOPIC, [
        { key: nodeId, value: signedReport(node, { ...report, sentAt: new Date().toISOString() }) },
      ]);
      await eventually(
        'heartbeat appended',
        async () => (await h.store.readStream(heartbeatStream(nodeId))).length === 1,
      );
      expect((await h.request('PUT', '/v1/quotas/default', { limits: { cpuMillis: 4000 } })).status).toBe(
        200,
      );
      const submitted = await h.request('POST', '/v1/workloads', processSpec());
      expect(submitted.status).toBe(201);
      workloadId = submitted.body.workloadId;
    });
    afterAll(async () => h?.close());

    it('gives heartbeat streams maxAge and no other stream any retention metadata', async () => {
      const streams = [...new Set((await h.store.readAll()).map((e) => e.streamId))];
      expect(streams).toEqual(
        expect.arrayContaining([
          domainStream('site-a'),
          nodeStream(nodeId),
          heartbeatStream(nodeId),
          quotaStream('default'),
          workloadStream(workloadId),
        ]),
      );
      const node = await h.store.readStream(nodeStream(nodeId));
      expect(node.map((e) => e.type)).toEqual(['NodeRegistered', 'CapacityReserved']);
      for (const streamId of streams) {
        const expected = streamId.startsWith('heartbeat-') ? { maxAge: 3600 } : {};
        expect([streamId, await h.store.getStreamMetadata(streamId)]).toEqual([streamId, expected]);
      }
    });
  },
);
