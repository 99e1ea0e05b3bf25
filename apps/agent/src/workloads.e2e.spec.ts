import { quotaStream, workloadStream } from '@hcn/contracts';
import { MemoryMessageBus } from '@hcn/messaging';
import { describeWithPostgres, eventuallyExpect } from '@hcn/testing';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HubHarness, TEST_JOIN_TOKEN, processSpec, startHubHarness } from '../../hub/src/testing/hub-harness';
import { Agent } from './agent';
import { loadAgentConfig } from './config';

/** Real processes through the whole path: hub placement, dispatch, agent executor, reports, logs over the bus. */
describeWithPostgres('workloads run as real processes (hub + agent, real PostgreSQL, in-process bus)', () => {
  let dataDir: string;
  let h: HubHarness;
  let agent: Agent;
  const bus = new MemoryMessageBus();

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'hcn-agent-run-'));
    h = await startHubHarness({ HCN_NODE_TTL_SECONDS: '30', HCN_HEARTBEAT_INTERVAL_SECONDS: '1' }, bus);
    const config = loadAgentConfig({
      HCN_HUB_URL: h.hub.url,
      HCN_JOIN_TOKEN: TEST_JOIN_TOKEN,
      HCN_DOMAIN: 'site-run',
      HCN_DATA_DIR: dataDir,
    });
    agent = new Agent(config, bus);
    await agent.start();
  });
  afterAll(async () => {
    await agent?.stop();
    await h?.close();
    await bus.close();
    rmSync(dataDir, { recursive: true, force: true });
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
  const types = async (id: string) => (await h.store.readStream(workloadStream(id))).map((e) => e.type);

  it('starts a process with its HCN_* environment, reads its logs through the API, stops it with SIGTERM', async () => {
    const id = await submit(
      'echo "hello from $HCN_WORKLOAD_ID instance $HCN_INSTANCE_ID on $HCN_NODE_ID"; echo warn >&2; exec sleep 60',
      {
        stopGraceSeconds: 5,
      },
    );
    await eventuallyExpect(async () => expect((await view(id)).status).toBe('running'));
    await eventuallyExpect(async () => {
      const logs = (await h.request('GET', `/v1/workloads/${id}/logs?lines=10`)).body;
      const lines = logs.allocations[0].lines.map((l: { line: string }) => l.line);
      expect(lines).toContain(`hello from ${id} instance ${id}/0 on ${agent.nodeId}`);
      expect(lines).toContain('warn');
    });
    expect((await h.request('POST', `/v1/workloads/${id}/stop`, {})).status).toBe(202);
    await eventuallyExpect(async () => expect((await view(id)).status).toBe('stopped'));
    const stopped = (await h.store.readStream(workloadStream(id))).find(
      (e) => e.type === 'AllocationStopped',
    );
    expect(stopped?.data).toMatchObject({ endedBy: 'SIGTERM' });
    expect(await types(id)).toEqual(
      expect.arrayContaining(['AllocationStarted', 'WorkloadStopRequested', 'AllocationStopRequested']),
    );
    expect(agent.runningAllocations).toEqual([]);
  }, 30000);

  it('kills a process that ignores SIGTERM after the grace period', async () => {
    const id = await submit('trap "" TERM; while true; do sleep 0.1; done', { stopGraceSeconds: 1 });
    await eventuallyExpect(async () => expect((await view(id)).status).toBe('running'));
    const asked = Date.now();
    await h.request('POST', `/v1/workloads/${id}/stop`, {});
    await eventuallyExpect(async () => expect((await view(id)).status).toBe('stopped'), 15000);
    const stopped = (await h.store.readStream(workloadStream(id))).find(
      (e) => e.type === 'AllocationStopped',
    );
    expect(stopped?.data).toMatchObject({ endedBy: 'SIGKILL', signal: 'SIGKILL' });
    expect(Date.now() - asked).toBeGreaterThanOrEqual(1000);
  }, 30000);

  it('reports completion and failure, and retries a failing process under on-failure until the retries are used', async () => {
    const ok = await submit('exit 0');
    await eventuallyExpect(async () => expect((await view(ok)).status).toBe('completed'));
    const bad = await submit('echo attempt; exit 3', {
      restartPolicy: { policy: 'on-failure', maxRetries: 2, backoffSeconds: 0.1 },
    });
    await eventuallyExpect(async () => expect((await view(bad)).status).toBe('failed'), 20000);
    const events = await types(bad);
    expect(events.filter((t) => t === 'AllocationPlaced')).toHaveLength(3);
    expect(events.filter((t) => t === 'AllocationFailed')).toHaveLength(3);
    const failed = (await h.store.readStream(workloadStream(bad))).find((e) => e.type === 'AllocationFailed');
    expect(failed?.data).toMatchObject({ exitCode: 3 });
  }, 30000);

  it('restart replaces the running allocation with a new attempt', async () => {
    const id = await submit('exec sleep 60', { stopGraceSeconds: 2 });
    await eventuallyExpect(async () => expect((await view(id)).status).toBe('running'));
    const first = (await view(id)).instances[0].allocationId;
    expect((await h.request('POST', `/v1/workloads/${id}/restart`, {})).status).toBe(202);
    await eventuallyExpect(async () => {
      const v = await view(id);
      expect(v.instances[0]).toMatchObject({ status: 'running', attempt: 1 });
      expect(v.instances[0].allocationId).not.toBe(first);
    }, 15000);
    await h.request('DELETE', `/v1/workloads/${id}`);
    await eventuallyExpect(async () => expect(agent.runningAllocations).toEqual([]), 15000);
  }, 40000);

  it('lets go of an ended workload in the saga, and takes it up again on restart and on deletion', async () => {
    const id = await submit('exit 0');
    await eventuallyExpect(async () => expect((await view(id)).status).toBe('completed'));
    await eventuallyExpect(() => expect(h.hub.saga.remembers(id)).toBe(false));
    expect((await h.request('POST', `/v1/workloads/${id}/restart`, {})).status).toBe(202);
    await eventuallyExpect(async () => {
      const v = await view(id);
      expect(v.instances[0]).toMatchObject({ status: 'completed', attempt: 1 });
    }, 15000);
    await eventuallyExpect(() => expect(h.hub.saga.remembers(id)).toBe(false));
    expect((await h.request('DELETE', `/v1/workloads/${id}`)).status).toBeLessThan(300);
    await eventuallyExpect(async () => {
      const quota = await h.store.readStream(quotaStream('default'));
      const released = quota.filter((e) => e.type === 'QuotaReleased' && e.data.workloadId === id);
      expect(released).toHaveLength(1);
    }, 15000);
  }, 40000);
});
