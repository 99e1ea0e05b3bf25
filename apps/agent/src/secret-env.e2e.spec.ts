import { workloadStream } from '@hcn/contracts';
import type { IncomingMessage } from '@hcn/messaging';
import { commandTopicFor } from '@hcn/platform';
import { describeWithPostgres, eventually } from '@hcn/testing';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HubHarness, TEST_JOIN_TOKEN, processSpec, startHubHarness } from '../../hub/src/testing/hub-harness';
import { Agent } from './agent';
import { loadAgentConfig } from './config';

const DOMAIN = 'site-secrets';
const SECRET = 'hunter2-very-secret-value';

describeWithPostgres('secret environment entries (hub + agent, real PostgreSQL)', () => {
  let h: HubHarness;
  let agent: Agent;
  let dataDir: string;
  const onBus: IncomingMessage[] = [];
  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'hcn-secrets-'));
    h = await startHubHarness({ HCN_NODE_TTL_SECONDS: '600' });
    await h.bus.consume({
      groupId: 'spec-secrets',
      topics: [commandTopicFor(DOMAIN)],
      fromBeginning: true,
      handleBatch: async (m) => void onBus.push(...m),
    });
    agent = new Agent(
      loadAgentConfig({
        HCN_HUB_URL: h.hub.url,
        HCN_JOIN_TOKEN: TEST_JOIN_TOKEN,
        HCN_DOMAIN: DOMAIN,
        HCN_DATA_DIR: dataDir,
      }),
      h.bus,
    );
    await agent.start();
  });
  afterAll(async () => {
    await agent?.stop();
    await h?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('reach the workload, and nowhere else: not the log, not the views, not the bus', async () => {
    const submitted = await h.request(
      'POST',
      '/v1/workloads',
      processSpec({ args: ['-c', 'echo "token=$API_TOKEN"'], secretEnv: { API_TOKEN: SECRET } }),
    );
    expect(submitted.status).toBe(201);
    const id = submitted.body.workloadId as string;
    await eventually(
      'completed',
      async () =>
        (await h.store.readStream(workloadStream(id))).some((e) => e.type === 'AllocationCompleted'),
      15000,
    );
    await eventually('its output shipped', async () => {
      const logs = (await h.request('GET', `/v1/workloads/${id}/logs?lines=10`)).body;
      return JSON.stringify(logs).includes(`token=${SECRET}`);
    });
    const view = await h.request('GET', `/v1/workloads/${id}`);
    expect(view.body.spec.secretEnv.API_TOKEN).toMatch(/^s1:/);
    expect(JSON.stringify(view.body)).not.toContain(SECRET);
    expect(JSON.stringify(await h.request('GET', '/v1/workloads'))).not.toContain(SECRET);
    const chain = await h.request('GET', `/v1/audit/workloads/${id}/chain`);
    expect(chain.status).toBe(200);
    expect(JSON.stringify(chain.body)).not.toContain(SECRET);
    const log = (await h.store.readAll()).map((e) => [e.type, e.data, e.metadata]);
    expect(JSON.stringify(log)).toContain('secretEnv');
    expect(JSON.stringify(log)).not.toContain(SECRET);
    const runs = onBus.map((m) => m.value.toString()).filter((v) => v.includes(id));
    expect(runs.length).toBeGreaterThan(0);
    expect(runs.join('\n')).not.toContain(SECRET);
    expect(JSON.parse(runs[0]).placement.sealedEnv).toMatch(/^s1:/);
  });
});
