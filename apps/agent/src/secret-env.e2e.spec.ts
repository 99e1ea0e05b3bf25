import { workloadStream } from '@hcn/contracts';
import type { IncomingMessage } from '@hcn/messaging';
import { commandTopicFor } from '@hcn/platform';
import { describeWithPostgres, eventually } from '@hcn/testing';
import { HubHarness, processSpec } from '../../hub/src/testing/hub-harness';
import { HubAndAgent, startHubAndAgent } from './testing/hub-and-agent';

const DOMAIN = 'site-secrets';
const SECRET = 'hunter2-very-secret-value';

describeWithPostgres('secret environment entries (hub + agent, real PostgreSQL)', () => {
  let h: HubHarness;
  let running: HubAndAgent;
  const onBus: IncomingMessage[] = [];
  beforeAll(async () => {
    running = await startHubAndAgent(DOMAIN);
    h = running.h;
    await h.bus.consume({
      groupId: 'spec-secrets',
      topics: [commandTopicFor(DOMAIN)],
      fromBeginning: true,
      handleBatch: async (m) => void onBus.push(...m),
    });
  });
  afterAll(async () => running?.close());

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
