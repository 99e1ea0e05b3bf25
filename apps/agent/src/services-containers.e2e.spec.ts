import { LIVENESS_FAILED, workloadStream } from '@hcn/contracts';
import { MemoryMessageBus } from '@hcn/messaging';
import {
  describeWithContainers,
  describeWithPostgres,
  eventuallyExpect,
  testContainerEngine,
} from '@hcn/testing';
import { mkdtempSync, rmSync } from 'node:fs';
import { get } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HubHarness, TEST_JOIN_TOKEN, startHubHarness } from '../../hub/src/testing/hub-harness';
import { Agent } from './agent';
import { loadAgentConfig } from './config';
import { LABELS } from './containers/container-request';
import { DockerEngine } from './containers/docker-engine';

/** GET over HTTP: the body. */
function fetchText(url: string): Promise<string> {
  return new Promise((resolve, reject) => {
    get(url, (res) => {
      let body = '';
      res.on('data', (chunk) => (body += chunk));
      res.on('end', () => resolve(body));
    }).on('error', reject);
  });
}

/** A container service through the whole path: busybox httpd on podman, probed over its published port and by exec. */
describeWithPostgres('container services (hub + agent, real PostgreSQL, podman)', () => {
  describeWithContainers('busybox httpd as a service', () => {
    const { socketPath, image } = testContainerEngine();
    const engine = new DockerEngine(socketPath);
    const bus = new MemoryMessageBus();
    let dataDir: string;
    let h: HubHarness;
    let agent: Agent;

    beforeAll(async () => {
      dataDir = mkdtempSync(join(tmpdir(), 'hcn-agent-box-services-'));
      h = await startHubHarness({ HCN_NODE_TTL_SECONDS: '30', HCN_HEARTBEAT_INTERVAL_SECONDS: '1' }, bus);
      agent = new Agent(
        loadAgentConfig({
          HCN_HUB_URL: h.hub.url,
          HCN_JOIN_TOKEN: TEST_JOIN_TOKEN,
          HCN_DOMAIN: 'site-box-services',
          HCN_DATA_DIR: dataDir,
          HCN_ADVERTISE_ADDRESS: '127.0.0.1',
          DOCKER_HOST: `unix://${socketPath}`,
        }),
        bus,
      );
      await agent.start();
    });
    afterAll(async () => {
      await agent?.stop();
      await h?.close();
      await bus.close();
      for (const c of await engine.list([`${LABELS.node}=${agent?.nodeId}`])) await engine.remove(c.id);
      rmSync(dataDir, { recursive: true, force: true });
    });

    const spec = (version: string) => ({
      name: 'box-web',
      type: 'service',
      image,
      pullPolicy: 'never',
      command: '/bin/sh',
      // httpd comes up a second after the start; it listens on PORT, which the agent sets to the containerPort
      args: [
        '-c',
        'mkdir -p /www && echo "hello $VERSION" > /www/index.html && sleep 1 && exec httpd -f -p $PORT -h /www',
      ],
      env: { VERSION: version },
      ports: [{ name: 'http', containerPort: 8080 }],
      readinessProbe: { http: { path: '/index.html', port: 'http' }, intervalSeconds: 0.2 },
      livenessProbe: {
        exec: { command: ['sh', '-c', 'test ! -f /tmp/stale'] },
        intervalSeconds: 0.3,
        failureThreshold: 2,
      },
      restartPolicy: { policy: 'always', backoffSeconds: 0.2 },
      resources: { cpuMillis: 250, memoryBytes: 64 * 2 ** 20 },
      stopGraceSeconds: 2,
    });
    const view = async (id: string) => (await h.request('GET', `/v1/workloads/${id}`)).body;

    it('is ready once httpd answers on its published port, restarts when its exec liveness fails, rolls to a new spec', async () => {
      const submitted = await h.request('POST', '/v1/workloads', spec('v1'));
      expect(submitted.status).toBe(201);
      const id: string = submitted.body.workloadId;
      await eventuallyExpect(async () => expect((await view(id)).service.readyReplicas).toBe(1), 60000);
      const first = await view(id);
      expect(first.service.runtime).toBe('container');
      const [endpoint] = first.service.endpoints.http as string[];
      expect(endpoint).toMatch(/^127\.0\.0\.1:\d+$/);
      expect((await fetchText(`http://${endpoint}/index.html`)).trim()).toBe('hello v1');
      const started = (await h.store.readStream(workloadStream(id))).find(
        (e) => e.type === 'AllocationStarted',
      );
      expect(started?.data).toMatchObject({ ports: [{ name: 'http', containerPort: 8080 }] });

      // the liveness check runs inside the container: make it fail there
      const allocationId = first.instances[0].allocationId as string;
      const [container] = await engine.list([`${LABELS.allocation}=${allocationId}`]);
      expect(await engine.exec(container.id, ['touch', '/tmp/stale'], 5000)).toBe(0);
      await eventuallyExpect(async () => {
        const failed = (await h.store.readStream(workloadStream(id))).find(
          (e) => e.type === 'AllocationFailed',
        );
        expect((failed?.data as { reason?: string } | undefined)?.reason).toMatch(
          new RegExp(`^${LIVENESS_FAILED.replace('.', '\\.')}: `),
        );
      }, 30000);
      await eventuallyExpect(async () => {
        const v = await view(id);
        expect(v.instances[0]).toMatchObject({ attempt: 1, status: 'running' });
        expect(v.service.readyReplicas).toBe(1);
      }, 60000);

      expect((await h.request('PUT', `/v1/workloads/${id}`, spec('v2'))).status).toBeLessThan(300);
      await eventuallyExpect(async () => {
        const v = await view(id);
        expect(v.service.ready.map((r: { generation: number }) => r.generation)).toEqual([2]);
        const [now] = v.service.endpoints.http as string[];
        expect((await fetchText(`http://${now}/index.html`)).trim()).toBe('hello v2');
      }, 60000);
      await h.request('DELETE', `/v1/workloads/${id}`);
      await eventuallyExpect(async () => expect(agent.runningAllocations).toEqual([]), 30000);
    }, 180000);
  });
});
