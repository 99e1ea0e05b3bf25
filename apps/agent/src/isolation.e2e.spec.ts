import { isEventOf, workloadStream } from '@hcn/contracts';
import { MemoryMessageBus } from '@hcn/messaging';
import { describeWithPostgres, eventuallyExpect } from '@hcn/testing';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { embeddedSecrets } from '../../embedded/src/embedded-secrets';
import { HubHarness, TEST_JOIN_TOKEN, processSpec, startHubHarness } from '../../hub/src/testing/hub-harness';
import { Agent } from './agent';
import { loadAgentConfig } from './config';
import { detectCgroupMode } from './isolation/cgroups';

const isolating = process.getuid?.() === 0 && detectCgroupMode() !== 'none';

/** Process workloads through hub and agent, laid out as embedded mode lays out ./data (secrets beside the agent). */
describeWithPostgres('process workloads are isolated (hub + agent, real PostgreSQL, real cgroups)', () => {
  let data: string;
  let h: HubHarness;
  let agent: Agent;
  const bus = new MemoryMessageBus();

  beforeAll(async () => {
    if (!isolating) throw new Error('this spec needs root and writable cgroups (as the test machines have)');
    data = mkdtempSync(join(tmpdir(), 'hcn-isolated-'));
    chmodSync(data, 0o711);
    embeddedSecrets(data);
    mkdirSync(join(data, 'agent'));
    h = await startHubHarness({ HCN_NODE_TTL_SECONDS: '30', HCN_HEARTBEAT_INTERVAL_SECONDS: '1' }, bus);
    const config = loadAgentConfig({
      HCN_HUB_URL: h.hub.url,
      HCN_JOIN_TOKEN: TEST_JOIN_TOKEN,
      HCN_DOMAIN: 'site-isolated',
      HCN_DATA_DIR: join(data, 'agent'),
    });
    agent = new Agent(config, bus);
    await agent.start();
  });
  afterAll(async () => {
    await agent?.stop();
    await h?.close();
    await bus.close();
    if (data) rmSync(data, { recursive: true, force: true });
  });

  async function submit(script: string, extra: Record<string, unknown> = {}): Promise<string> {
    const response = await h.request(
      'POST',
      '/v1/workloads',
      processSpec({ args: ['-c', script], ...extra }),
    );
    expect(response.status).toBe(201);
    return response.body.workloadId;
  }
  const view = async (id: string) => (await h.request('GET', `/v1/workloads/${id}`)).body;
  const stderr = async (id: string): Promise<string[]> => {
    const logs = (await h.request('GET', `/v1/workloads/${id}/logs?lines=20`)).body;
    return logs.allocations[0].lines.map((l: { line: string }) => l.line);
  };

  it("cannot read the agent's outbox, identity file or the embedded secrets: EACCES", async () => {
    const agentDir = join(data, 'agent');
    const mode = (path: string) => statSync(path).mode & 0o777;
    expect([mode(agentDir), mode(join(agentDir, 'outbox')), mode(join(agentDir, 'node-id'))]).toEqual([
      0o700, 0o700, 0o600,
    ]);
    const reads = [
      `ls ${join(agentDir, 'outbox')}`,
      `cat ${join(agentDir, 'node-id')}`,
      `cat ${join(data, 'secrets.json')}`,
    ];
    const id = await submit(`${reads.join('; ')}; id -u`);
    await eventuallyExpect(async () => expect((await view(id)).status).toBe('completed'), 20000);
    await eventuallyExpect(async () => {
      const lines = await stderr(id);
      expect(lines.filter((l) => l.includes('Permission denied'))).toHaveLength(3);
      expect(lines).not.toContain('0'); // not root
    });
    expect(JSON.stringify(await view(id))).not.toMatch(/adminToken|credential/);
  }, 40000);

  it('kills a process over its memory limit and reports ALLOCATION.OOM_KILLED with its measured peak', async () => {
    const id = await submit('exec tail /dev/zero', {
      resources: { cpuMillis: 200, memoryBytes: 48 * 2 ** 20 },
    });
    await eventuallyExpect(async () => expect((await view(id)).status).toBe('failed'), 20000);
    const failed = (await h.store.readStream(workloadStream(id))).find((e) => e.type === 'AllocationFailed');
    expect(failed?.data).toMatchObject({ reason: expect.stringMatching(/^ALLOCATION\.OOM_KILLED/) });
    const [allocation] = (await view(id)).allocations;
    expect(allocation.usage.memoryPeakBytes).toBeGreaterThanOrEqual(40 * 2 ** 20);
  }, 40000);

  it('shows measured CPU and memory of a running allocation, then its final usage', async () => {
    const id = await submit('while :; do :; done', {
      resources: { cpuMillis: 500, memoryBytes: 64 * 2 ** 20 },
    });
    await eventuallyExpect(async () => {
      const [allocation] = (await view(id)).allocations;
      expect(allocation.status).toBe('running');
      expect(allocation.usage.cpuSeconds).toBeGreaterThan(0.5);
      expect(allocation.usage.memoryBytes).toBeGreaterThan(0);
    }, 20000);
    expect((await h.request('POST', `/v1/workloads/${id}/stop`, {})).status).toBe(202);
    await eventuallyExpect(async () => expect((await view(id)).status).toBe('stopped'), 20000);
    const stopped = (await h.store.readStream(workloadStream(id))).find(
      (e) => e.type === 'AllocationStopped',
    );
    const usage = isEventOf(stopped, 'AllocationStopped') ? stopped.data.usage : undefined;
    expect(usage?.cpuSeconds).toBeGreaterThan(0.5);
    expect((await view(id)).allocations[0].usage).toEqual(usage);
  }, 40000);
});
