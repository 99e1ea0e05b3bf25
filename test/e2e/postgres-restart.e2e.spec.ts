import { heartbeatStream, workloadStream } from '@hcn/contracts';
import { DLQ_HEADERS, IncomingMessage } from '@hcn/messaging';
import { AGENT_REPORTS_TOPIC, freePort } from '@hcn/platform';
import { describeWithPostgres, eventuallyExpect, sleep } from '@hcn/testing';
import {
  PostgresServer,
  postgresDataFolder,
  startPostgresServer,
  stopPostgresServer,
} from '../support/postgres-server';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import {
  HubHarness,
  processSpec,
  registerNode,
  signedReport,
  startHubHarness,
} from '../../apps/hub/src/testing/hub-harness';

/**
 * PostgreSQL (its own server, not the suite's) is stopped and started again while submissions and heartbeats keep
 * coming: the API answers 503 meanwhile, every subscription resumes, nothing accepted is lost, nothing valid is
 * dead-lettered.
 */
describeWithPostgres('PostgreSQL restarted under load (hub + projector, real PostgreSQL)', () => {
  let pg: PostgresServer | undefined;
  let h: HubHarness | undefined;
  let dataDir: string;
  let port: number;
  const suiteUrl = process.env.HCN_TEST_DATABASE_URL;

  beforeAll(async () => {
    dataDir = postgresDataFolder('hcn-pg-restart-');
    port = await freePort();
    pg = await startPostgresServer(join(dataDir, 'pg'), port);
    process.env.HCN_TEST_DATABASE_URL = pg.url;
    h = await startHubHarness({ HCN_NODE_TTL_SECONDS: '600', HCN_START_DEADLINE_SECONDS: '600' });
  }, 60000);
  afterAll(async () => {
    process.env.HCN_TEST_DATABASE_URL = suiteUrl;
    await h?.close().catch(() => undefined);
    await stopPostgresServer(pg);
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('answers 503 while it is down, then resumes everything: nothing accepted is lost', async () => {
    const hub = h as HubHarness;
    const node = await registerNode(hub, {
      hostname: 'under-load',
      cpuCores: 64,
      memoryBytes: 256 * 2 ** 30,
    });
    const dead: IncomingMessage[] = [];
    const dlq = await hub.bus.consume({
      groupId: 'spec-dlq',
      topics: [`${AGENT_REPORTS_TOPIC}.dlq`],
      fromBeginning: true,
      handleBatch: async (m) => void dead.push(...m),
    });
    const accepted: string[] = [];
    const statuses: number[] = [];
    let seq = 0;
    let running = true;
    const load = (async () => {
      while (running) {
        const report = {
          kind: 'heartbeat',
          nodeId: node.nodeId,
          domainId: 'site-a',
          seq: ++seq,
          sentAt: new Date().toISOString(),
          usage: { cpuUsage: 0.2, memoryUsedBytes: 1, diskUsedBytes: 1 },
        };
        await hub.bus.publish(AGENT_REPORTS_TOPIC, [{ key: node.nodeId, value: signedReport(node, report) }]);
        const r = await hub
          .request('POST', '/v1/workloads', processSpec({ name: `w${seq}` }))
          .catch(() => undefined);
        statuses.push(r?.status ?? 0);
        if (r?.status === 201) accepted.push(r.body.workloadId);
        await sleep(150);
      }
    })();
    await sleep(2000);
    await stopPostgresServer(pg);
    await eventuallyExpect(async () => expect((await hub.request('GET', '/readyz')).status).toBe(503), 10000);
    await sleep(3000);
    pg = await startPostgresServer(join(dataDir, 'pg'), port);
    await eventuallyExpect(async () => expect((await hub.request('GET', '/readyz')).status).toBe(200), 60000);
    await sleep(2000);
    running = false;
    await load;
    const sent = seq;

    expect(statuses).toContain(503);
    expect(statuses.filter((s) => s !== 201 && s !== 503)).toEqual([]);
    expect(accepted.length).toBeGreaterThan(10);
    await eventuallyExpect(async () => {
      const seqs = (await hub.store.readStream(heartbeatStream(node.nodeId))).map(
        (e) => (e.data as { seq: number }).seq,
      );
      expect(new Set(seqs).size).toBe(sent);
    }, 30000);
    for (const id of accepted) {
      const types = (await hub.store.readStream(workloadStream(id))).map((e) => e.type);
      expect(types).toContain('WorkloadSubmitted');
    }
    await eventuallyExpect(async () => {
      const listed = await hub.request('GET', `/v1/workloads?limit=500`);
      const ids = new Set((listed.body.items as { workloadId: string }[]).map((w) => w.workloadId));
      expect(accepted.filter((id) => !ids.has(id))).toEqual([]);
    }, 30000);
    expect(hub.hub.metrics.subscriptions.failing()).toEqual([]);
    await dlq.stop();
    expect(dead.map((m) => m.headers[DLQ_HEADERS.code])).toEqual([]);
  }, 150000);
});
