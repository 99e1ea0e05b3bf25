import { workloadStream } from '@hcn/contracts';
import { MemoryMessageBus } from '@hcn/messaging';
import {
  describeWithContainers,
  describeWithPostgres,
  eventuallyExpect,
  testContainerEngine,
} from '@hcn/testing';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HubHarness, TEST_JOIN_TOKEN, startHubHarness } from '../../hub/src/testing/hub-harness';
import { Agent } from './agent';
import { loadAgentConfig } from './config';
import { DockerEngine } from './containers/docker-engine';
import { LABELS } from './containers/container-request';

/** Container workloads through the whole path: hub placement, dispatch, the agent's executor on podman, reports. */
describeWithPostgres('container workloads (hub + agents, real PostgreSQL, podman)', () => {
  describeWithContainers('on a node with an engine and one without', () => {
    const { socketPath, image } = testContainerEngine();
    const bus = new MemoryMessageBus();
    const dirs: string[] = [];
    let h: HubHarness;
    let withEngine: Agent;
    let withoutEngine: Agent;

    async function startAgent(dockerHost: string): Promise<Agent> {
      const dataDir = mkdtempSync(join(tmpdir(), 'hcn-agent-containers-'));
      dirs.push(dataDir);
      const config = loadAgentConfig({
        HCN_HUB_URL: h.hub.url,
        HCN_JOIN_TOKEN: TEST_JOIN_TOKEN,
        HCN_DOMAIN: 'site-containers',
        HCN_DATA_DIR: dataDir,
        DOCKER_HOST: dockerHost,
      });
      const agent = new Agent(config, bus);
      await agent.start();
      return agent;
    }

    beforeAll(async () => {
      h = await startHubHarness({ HCN_NODE_TTL_SECONDS: '30', HCN_HEARTBEAT_INTERVAL_SECONDS: '1' }, bus);
      withoutEngine = await startAgent('unix:///nonexistent/engine.sock');
      withEngine = await startAgent(`unix://${socketPath}`);
    });
    afterAll(async () => {
      await withEngine?.stop();
      await withoutEngine?.stop();
      await h?.close();
      await bus.close();
      const engine = new DockerEngine(socketPath);
      for (const c of await engine.list([`${LABELS.node}=${withEngine?.nodeId}`])) await engine.remove(c.id);
      dirs.forEach((d) => rmSync(d, { recursive: true, force: true }));
    });

    const containerSpec = (script: string, extra: Record<string, unknown> = {}) => ({
      name: 'boxed',
      type: 'container',
      image,
      pullPolicy: 'never',
      command: '/bin/sh',
      args: ['-c', script],
      resources: { cpuMillis: 250, memoryBytes: 64 * 2 ** 20 },
      ...extra,
    });

    async function submit(body: Record<string, unknown>): Promise<string> {
      const response = await h.request('POST', '/v1/workloads', body);
      expect(response.status).toBe(201);
      return response.body.workloadId;
    }

    const view = async (id: string) => (await h.request('GET', `/v1/workloads/${id}`)).body;
    /** Nothing a refused request would write: no new stream, no submission, no quota consumed, no reservation. */
    async function expectNothingWritten(
      before: readonly { eventId: string; streamId: string }[],
    ): Promise<void> {
      const known = new Set(before.map((e) => e.eventId));
      const streams = new Set(before.map((e) => e.streamId));
      const added = (await h.store.readAll()).filter((e) => !known.has(e.eventId));
      expect(added.filter((e) => !streams.has(e.streamId) && !e.streamId.startsWith('heartbeat-'))).toEqual(
        [],
      );
      const writes = ['WorkloadSubmitted', 'QuotaConsumed', 'CapacityReserved', 'AdmissionDenied'];
      expect(added.filter((e) => writes.includes(e.type))).toEqual([]);
    }
    const events = async (id: string) => h.store.readStream(workloadStream(id));

    it('runs a container to completion on the node with an engine; the other is rejected with its reason', async () => {
      const id = await submit(containerSpec('echo "boxed $HCN_INSTANCE_ID"; echo to-stderr >&2; exit 0'));
      await eventuallyExpect(async () => expect((await view(id)).status).toBe('completed'), 30000);
      const log = await events(id);
      expect(log.find((e) => e.type === 'AllocationPlaced')?.data).toMatchObject({
        nodeId: withEngine.nodeId,
      });
      expect(log.find((e) => e.type === 'AllocationCompleted')?.data).toMatchObject({ exitCode: 0 });
      // the decision, recorded inside the placement, keeps the refused node as an example of its reason
      const placed = log.find((e) => e.type === 'AllocationPlaced');
      const decision = JSON.stringify(placed?.type === 'AllocationPlaced' ? placed.data.decision : undefined);
      expect(decision).toContain(`"${withoutEngine.nodeId}",null,"FILTER.RUNTIME_UNAVAILABLE"`);
      await eventuallyExpect(async () => {
        const logs = (await h.request('GET', `/v1/workloads/${id}/logs?lines=10`)).body;
        const lines = logs.allocations[0].lines.map((l: { line: string }) => l.line);
        expect(lines).toEqual(expect.arrayContaining([`boxed ${id}/0`, 'to-stderr']));
      });
    }, 60000);

    it('records an exit code and the OOM kill of a container over its memory limit', async () => {
      const failing = await submit(containerSpec('exit 7'));
      const hog = await submit(
        containerSpec('exec tail /dev/zero', { resources: { cpuMillis: 250, memoryBytes: 24 * 2 ** 20 } }),
      );
      await eventuallyExpect(async () => expect((await view(failing)).status).toBe('failed'), 30000);
      await eventuallyExpect(async () => expect((await view(hog)).status).toBe('failed'), 30000);
      expect((await events(failing)).find((e) => e.type === 'AllocationFailed')?.data).toMatchObject({
        exitCode: 7,
      });
      expect((await events(hog)).find((e) => e.type === 'AllocationFailed')?.data).toMatchObject({
        reason: expect.stringMatching(/^ALLOCATION\.OOM_KILLED/),
      });
    }, 60000);

    it('fails a missing image with pullPolicy never as IMAGE.NOT_FOUND, visible in the workload', async () => {
      const id = await submit(containerSpec('true', { image: 'localhost/hcn-missing:1' }));
      await eventuallyExpect(async () => expect((await view(id)).status).toBe('failed'), 30000);
      expect(JSON.stringify(await view(id))).toContain('IMAGE.NOT_FOUND');
      const failures = (await events(id)).filter((e) => e.type === 'AllocationFailed');
      expect(failures).toHaveLength(1); // restart policy never: no retry, no loop
    }, 60000);

    it('stops a running container with SIGTERM', async () => {
      const id = await submit(
        containerSpec("trap 'exit 0' TERM; echo up; while :; do sleep 0.1; done", { stopGraceSeconds: 5 }),
      );
      await eventuallyExpect(async () => expect((await view(id)).status).toBe('running'), 30000);
      expect((await h.request('POST', `/v1/workloads/${id}/stop`, {})).status).toBe(202);
      await eventuallyExpect(async () => expect((await view(id)).status).toBe('stopped'), 30000);
      expect((await events(id)).find((e) => e.type === 'AllocationStopped')?.data).toMatchObject({
        endedBy: 'SIGTERM',
      });
    }, 60000);

    it('refuses a host path outside the allowed directories with 422 and writes nothing', async () => {
      const before = await h.store.readAll();
      const volumes = [{ source: '/etc', target: '/host-etc', readOnly: true }];
      const response = await h.request('POST', '/v1/workloads', containerSpec('true', { volumes }));
      expect([response.status, response.body.code]).toEqual([422, 'WORKLOAD.HOST_PATH_NOT_ALLOWED']);
      await expectNothingWritten(before);
    });

    it.each<[string, Record<string, unknown>, string]>([
      ['an unknown field', { imagePullSecret: 'x' }, ''],
      ['a port out of range', { ports: [{ containerPort: 70000 }] }, 'ports'],
      ['a negative memory limit', { resources: { cpuMillis: 100, memoryBytes: -1 } }, 'resources'],
      ['a relative volume target', { volumes: [{ source: 'data', target: 'data' }] }, 'volumes'],
      ['no image', { image: undefined }, 'image'],
      ['container fields on a process', { type: 'process', ports: [{ containerPort: 80 }] }, 'ports'],
    ])('refuses %s with 400 and writes nothing', async (...[, extra, path]) => {
      const before = await h.store.readAll();
      const response = await h.request('POST', '/v1/workloads', containerSpec('true', extra));
      expect(response.status).toBe(400);
      expect(response.body.code).toMatch(/^WORKLOAD\./);
      if (path) expect(JSON.stringify(response.body)).toContain(path);
      await expectNothingWritten(before);
    });
  });
});
