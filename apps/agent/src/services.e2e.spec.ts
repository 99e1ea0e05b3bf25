import { LIVENESS_FAILED, PROBE_PORT_UNKNOWN, RecordedHcnEvent, workloadStream } from '@hcn/contracts';
import { WorkloadState, evolveRecorded, readyReplicas, workloadDecider } from '@hcn/domain';
import { MemoryMessageBus } from '@hcn/messaging';
import { describeWithPostgres, eventuallyExpect } from '@hcn/testing';
import { mkdtempSync, rmSync } from 'node:fs';
import { get } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HubHarness, TEST_JOIN_TOKEN, startHubHarness } from '../../hub/src/testing/hub-harness';
import { Agent } from './agent';
import { loadAgentConfig } from './config';

/**
 * A tiny HTTP service: `/ready` answers 503 until READY_AFTER_MS passed since it started, `/live` 200 until `/die`
 * was asked, `/` says its VERSION and instance. It listens on PORT, as the agent tells it.
 */
const SERVER = `
const http = require('http');
const started = Date.now();
let alive = true;
http.createServer((req, res) => {
  if (req.url === '/ready') return res.writeHead(Date.now() - started >= Number(process.env.READY_AFTER_MS || 0) ? 200 : 503).end();
  if (req.url === '/live') return res.writeHead(alive ? 200 : 500).end();
  if (req.url === '/die') { alive = false; return res.end('dying'); }
  res.end(JSON.stringify({ version: process.env.VERSION, instance: process.env.HCN_INSTANCE_ID, port: process.env.HCN_PORT_HTTP }));
}).listen(Number(process.env.PORT));
`;

/** GET over HTTP: status and body. */
function fetchText(url: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    get(url, (res) => {
      let body = '';
      res.on('data', (chunk) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    }).on('error', reject);
  });
}

/** Services through the whole path: spec, placement, a real agent running and probing processes, reports, views. */
describeWithPostgres('services (hub + real agent, real PostgreSQL, in-process bus)', () => {
  let dataDir: string;
  let h: HubHarness;
  let agent: Agent;
  const bus = new MemoryMessageBus();

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'hcn-agent-services-'));
    h = await startHubHarness({ HCN_NODE_TTL_SECONDS: '30', HCN_HEARTBEAT_INTERVAL_SECONDS: '1' }, bus);
    const config = loadAgentConfig({
      HCN_HUB_URL: h.hub.url,
      HCN_JOIN_TOKEN: TEST_JOIN_TOKEN,
      HCN_DOMAIN: 'site-services',
      HCN_DATA_DIR: dataDir,
      HCN_ADVERTISE_ADDRESS: '127.0.0.1',
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

  const service = (extra: Record<string, unknown> = {}) => ({
    name: 'web',
    type: 'service',
    command: process.execPath,
    args: ['-e', SERVER],
    env: { READY_AFTER_MS: '1500', VERSION: 'v1' },
    ports: [{ name: 'http' }],
    readinessProbe: { http: { path: '/ready', port: 'http' }, intervalSeconds: 0.2, timeoutSeconds: 1 },
    resources: { cpuMillis: 100, memoryBytes: 2 ** 28 },
    stopGraceSeconds: 2,
    ...extra,
  });
  const submit = async (body: Record<string, unknown>): Promise<string> => {
    const response = await h.request('POST', '/v1/workloads', body);
    expect(response.status).toBe(201);
    return response.body.workloadId;
  };
  const view = async (id: string) => (await h.request('GET', `/v1/workloads/${id}`)).body;
  const events = (id: string) => h.store.readStream(workloadStream(id));
  const remove = async (id: string) => {
    await h.request('DELETE', `/v1/workloads/${id}`);
    await eventuallyExpect(async () => expect((await view(id)).status).toBe('deleted'), 15000);
  };

  it('lists endpoints only once replicas are ready, and each endpoint serves', async () => {
    // ready 3 s after its start: long enough to see both running and not ready on a busy box
    const id = await submit(service({ replicas: 2, env: { READY_AFTER_MS: '3000', VERSION: 'v1' } }));
    await eventuallyExpect(async () => {
      const v = await view(id);
      expect(v.instances.map((i: { status: string }) => i.status)).toEqual(['running', 'running']);
    }, 10000);
    const early = await view(id);
    expect(early.service).toMatchObject({
      runtime: 'process',
      replicas: 2,
      readyReplicas: 0,
      endpoints: { http: [] },
    });
    await eventuallyExpect(async () => expect((await view(id)).service.readyReplicas).toBe(2), 15000);
    const ready = await view(id);
    expect(ready.service.endpoints.http).toHaveLength(2);
    for (const endpoint of ready.service.endpoints.http as string[]) {
      expect(endpoint).toMatch(/^127\.0\.0\.1:\d+$/);
      const answer = await fetchText(`http://${endpoint}/`);
      expect(JSON.parse(answer.body)).toMatchObject({ version: 'v1', port: endpoint.split(':')[1] });
    }
    // readiness came from the probe: each AllocationReady after its start, not before the server said ready
    const log = await events(id);
    for (const e of log.filter((x) => x.type === 'AllocationReady')) {
      const started = log.find(
        (x) =>
          x.type === 'AllocationStarted' &&
          x.data.allocationId === (e.data as { allocationId: string }).allocationId,
      );
      expect(started).toBeDefined();
      expect(Date.parse(e.recordedAt) - Date.parse(started?.recordedAt ?? '')).toBeGreaterThanOrEqual(2500);
    }
    // the services listing, from the read model, agrees
    await eventuallyExpect(async () => {
      const listed = (await h.request('GET', '/v1/services?name=web')).body;
      const item = listed.items.find((s: { workloadId: string }) => s.workloadId === id);
      expect(item).toMatchObject({ readyReplicas: 2, ports: [{ name: 'http' }] });
      expect([...item.endpoints.http].sort()).toEqual([...ready.service.endpoints.http].sort());
    }, 10000);
    await remove(id);
  }, 60000);

  it('a failing liveness probe makes the agent stop the replica, reported failed; the restart policy starts another', async () => {
    const id = await submit(
      service({
        env: { READY_AFTER_MS: '0', VERSION: 'v1' },
        // a process slow to start under load (CI) gets 2 s before its liveness counts; then 0.4 s ends it
        livenessProbe: {
          http: { path: '/live', port: 'http' },
          initialDelaySeconds: 2,
          intervalSeconds: 0.2,
          failureThreshold: 2,
        },
        restartPolicy: { policy: 'always', backoffSeconds: 0.2 },
      }),
    );
    await eventuallyExpect(async () => expect((await view(id)).service.readyReplicas).toBe(1), 30000);
    const first = await view(id);
    const [endpoint] = first.service.endpoints.http as string[];
    expect((await fetchText(`http://${endpoint}/die`)).body).toBe('dying');
    await eventuallyExpect(async () => {
      // the failure of the replica told to die (an attempt before it, slow to start under load, may have failed too)
      const failed = (await events(id)).find(
        (e) => e.type === 'AllocationFailed' && e.data.allocationId === first.instances[0].allocationId,
      );
      expect(failed?.data).toMatchObject({ allocationId: first.instances[0].allocationId });
      expect((failed?.data as { reason: string }).reason).toMatch(
        new RegExp(`^${LIVENESS_FAILED.replace('.', '\\.')}: `),
      );
    }, 15000);
    await eventuallyExpect(async () => {
      const v = await view(id);
      expect(v.instances[0].status).toBe('running');
      // at least one restart (a replacement slow to start on a busy box may fail its liveness probe in turn)
      expect(v.instances[0].attempt).toBeGreaterThanOrEqual(1);
      expect(v.service.readyReplicas).toBe(1);
      expect(v.service.endpoints.http).not.toContain(endpoint); // a new port for the new process
    }, 20000);
    await remove(id);
  }, 90000);

  it('a rolling update replaces one replica at a time, each only after the one before is ready', async () => {
    const id = await submit(service({ replicas: 3, env: { READY_AFTER_MS: '800', VERSION: 'v1' } }));
    await eventuallyExpect(async () => expect((await view(id)).service.readyReplicas).toBe(3), 20000);
    const before = (await events(id)).length;
    const updated = await h.request(
      'PUT',
      `/v1/workloads/${id}`,
      service({ replicas: 3, env: { READY_AFTER_MS: '800', VERSION: 'v2' } }),
    );
    expect(updated.status).toBeLessThan(300);
    await eventuallyExpect(async () => {
      const v = await view(id);
      expect(v.service.readyReplicas).toBe(3);
      expect(v.service.ready.map((r: { generation: number }) => r.generation)).toEqual([2, 2, 2]);
    }, 40000);
    // replay the stream: after the update at most one replica was unavailable at any time, and every stop after the
    // first followed a replacement becoming ready
    let state: WorkloadState = workloadDecider.initialState;
    let stops = 0;
    let readySinceStop = true;
    for (const [index, event] of (await events(id)).entries()) {
      state = evolveRecorded(workloadDecider, state, event as RecordedHcnEvent);
      if (index < before) continue;
      if (event.type === 'AllocationStopRequested') {
        expect(readySinceStop).toBe(true);
        readySinceStop = false;
        stops += 1;
      }
      if (event.type === 'AllocationReady') readySinceStop = true;
      expect(readyReplicas(state).length).toBeGreaterThanOrEqual(2);
    }
    expect(stops).toBe(3);
    for (const endpoint of (await view(id)).service.endpoints.http as string[])
      expect(JSON.parse((await fetchText(`http://${endpoint}/`)).body)).toMatchObject({ version: 'v2' });
    await remove(id);
  }, 90000);

  it('refuses a probe on a port the spec does not expose, and other shape errors, writing nothing', async () => {
    const streamsBefore = (await h.request('GET', '/v1/workloads?includeDeleted=true')).body.total;
    const unknown = await h.request(
      'POST',
      '/v1/workloads',
      service({ readinessProbe: { tcp: { port: 'metrics' } } }),
    );
    expect(unknown.status).toBe(400);
    expect(unknown.body.code).toBe(PROBE_PORT_UNKNOWN);
    const unnamed = await h.request(
      'POST',
      '/v1/workloads',
      service({ ports: [{ hostPort: 0 }], readinessProbe: undefined }),
    );
    expect(unnamed.status).toBe(400);
    expect(unnamed.body.code).toBe('WORKLOAD.SPEC');
    const both = await h.request(
      'POST',
      '/v1/workloads',
      service({ readinessProbe: { tcp: { port: 'http' }, exec: { command: ['true'] } } }),
    );
    expect(both.status).toBe(400);
    await new Promise((r) => setTimeout(r, 500));
    expect((await h.request('GET', '/v1/workloads?includeDeleted=true')).body.total).toBe(streamsBefore);
  }, 30000);
});
