import { MemoryMessageBus } from '@hcn/messaging';
import {
  describeWithContainers,
  describeWithPostgres,
  eventuallyExpect,
  testContainerEngine,
} from '@hcn/testing';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { Server, createServer, get } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  HubHarness,
  TEST_JOIN_TOKEN,
  startHubHarness,
  submittedWorkloads,
} from '../../hub/src/testing/hub-harness';
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

/**
 * A serving image plugged in by the operator: framework `static` is served by busybox httpd in the local image, from
 * the agent's `models` configuration. The "server" publishes the model file it was given (`{model}`), whether that
 * file is writable, and a health file, on `{port}`.
 */
const SERVE = [
  'mkdir -p /tmp/www && cp {model} /tmp/www/model',
  'if (echo x >> {model}) 2>/dev/null; then echo writable; else echo read-only; fi > /tmp/www/mount',
  'echo "$HCN_MODEL_PATH {port}" > /tmp/www/where && echo ok > /tmp/www/healthz',
  'exec httpd -f -p {port} -h /tmp/www',
].join('; ');

/** Models served by an operator's serving image through the whole path: agent configuration, podman, endpoint. */
describeWithPostgres('container models (hub + agent, real PostgreSQL, podman)', () => {
  describeWithContainers('an operator-configured serving image per framework', () => {
    const { socketPath, image } = testContainerEngine();
    const engine = new DockerEngine(socketPath);
    const bus = new MemoryMessageBus();
    let dataDir: string;
    let modelDir: string;
    let h: HubHarness;
    let agent: Agent;
    let files: Server;
    let filesUrl: string;

    beforeAll(async () => {
      dataDir = mkdtempSync(join(tmpdir(), 'hcn-agent-box-models-'));
      modelDir = mkdtempSync(join(tmpdir(), 'hcn-box-models-'));
      chmodSync(modelDir, 0o755);
      writeFileSync(join(modelDir, 'weights.bin'), 'weights v1\n', { mode: 0o644 });
      files = createServer((req, res) =>
        req.url === '/w/remote.bin' ? res.end('remote weights\n') : res.writeHead(404).end(),
      );
      await new Promise<void>((r) => files.listen(0, '127.0.0.1', r));
      filesUrl = `http://127.0.0.1:${(files.address() as AddressInfo).port}`;
      mkdirSync(join(dataDir, 'agent'));
      const file = join(dataDir, 'agent.yaml');
      writeFileSync(
        file,
        JSON.stringify({
          containers: { allowedHostPaths: [modelDir] },
          models: {
            static: {
              image,
              pullPolicy: 'never',
              command: '/bin/sh',
              args: ['-c', SERVE],
              healthPath: '/healthz',
            },
          },
        }),
      );
      h = await startHubHarness(
        {
          HCN_NODE_TTL_SECONDS: '30',
          HCN_HEARTBEAT_INTERVAL_SECONDS: '1',
          HCN_CONTAINER_HOST_PATHS: modelDir,
        },
        bus,
      );
      agent = new Agent(
        loadAgentConfig({
          HCN_AGENT_CONFIG: file,
          HCN_HUB_URL: h.hub.url,
          HCN_JOIN_TOKEN: TEST_JOIN_TOKEN,
          HCN_DOMAIN: 'site-box-models',
          HCN_DATA_DIR: join(dataDir, 'agent'),
          HCN_ADVERTISE_ADDRESS: '127.0.0.1',
          DOCKER_HOST: `unix://${socketPath}`,
        }),
        bus,
      );
      await agent.start();
    }, 60000);
    afterAll(async () => {
      await agent?.stop();
      await h?.close();
      await bus.close();
      files?.closeAllConnections();
      await new Promise((r) => files?.close(r));
      for (const c of await engine.list([`${LABELS.node}=${agent?.nodeId}`])) await engine.remove(c.id);
      rmSync(dataDir, { recursive: true, force: true });
      rmSync(modelDir, { recursive: true, force: true });
    });

    const spec = (extra: Record<string, unknown> = {}) => ({
      name: 'box-model',
      type: 'model',
      runtime: 'container',
      framework: 'static',
      modelPath: join(modelDir, 'weights.bin'),
      port: 8080,
      resources: { cpuMillis: 250, memoryBytes: 64 * 2 ** 20 },
      stopGraceSeconds: 2,
      ...extra,
    });
    const view = async (id: string) => (await h.request('GET', `/v1/workloads/${id}`)).body;
    const submit = async (body: Record<string, unknown>): Promise<string> => {
      const response = await h.request('POST', '/v1/workloads', body);
      expect(response.status).toBe(201);
      return response.body.workloadId;
    };
    const remove = async (id: string) => {
      await h.request('DELETE', `/v1/workloads/${id}`);
      await eventuallyExpect(async () => expect((await view(id)).status).toBe('deleted'), 30000);
    };

    it('registers the configured framework with the container runtime', async () => {
      const registrations = (await h.store.readStream(`node-${agent.nodeId}`)).filter((e) =>
        ['NodeRegistered', 'NodeReregistered'].includes(e.type),
      );
      expect((registrations.at(-1)?.data as { modelFrameworks?: unknown[] }).modelFrameworks).toContainEqual({
        framework: 'static',
        runtimes: ['container'],
      });
    });

    it('runs the configured image with the model mounted read-only at /models, ready on its health path', async () => {
      const id = await submit(spec());
      await eventuallyExpect(async () => expect((await view(id)).service.readyReplicas).toBe(1), 60000);
      const [endpoint] = (await view(id)).service.endpoints.http as string[];
      expect(endpoint).toMatch(/^127\.0\.0\.1:\d+$/);
      expect(await fetchText(`http://${endpoint}/model`)).toBe('weights v1\n');
      expect((await fetchText(`http://${endpoint}/mount`)).trim()).toBe('read-only');
      expect((await fetchText(`http://${endpoint}/where`)).trim()).toBe('/models/weights.bin 8080');
      await remove(id);
    }, 120000);

    it('downloads a modelUrl and mounts the downloaded file', async () => {
      const id = await submit(
        spec({ name: 'box-remote', modelPath: undefined, modelUrl: `${filesUrl}/w/remote.bin` }),
      );
      await eventuallyExpect(async () => expect((await view(id)).service.readyReplicas).toBe(1), 60000);
      const [endpoint] = (await view(id)).service.endpoints.http as string[];
      expect(await fetchText(`http://${endpoint}/model`)).toBe('remote weights\n');
      expect((await fetchText(`http://${endpoint}/where`)).trim()).toBe('/models/remote.bin 8080');
      await remove(id);
    }, 120000);

    it('refuses a container modelPath outside the allowed host paths at the hub: 422, nothing written', async () => {
      const before = await submittedWorkloads(h);
      const refused = await h.request(
        'POST',
        '/v1/workloads',
        spec({ name: 'box-denied', modelPath: '/etc/hostname' }),
      );
      expect([refused.status, refused.body.code]).toEqual([422, 'WORKLOAD.HOST_PATH_NOT_ALLOWED']);
      expect(refused.body.details).toMatchObject({ denied: ['/etc/hostname'] });
      expect(await submittedWorkloads(h)).toBe(before);
      // a process model reads its file as the workload user: no bind, no host-path rule
      const asProcess = await h.request(
        'POST',
        '/v1/workloads',
        spec({ name: 'box-process', runtime: 'process', modelPath: '/etc/hostname', port: undefined }),
      );
      expect(asProcess.status).toBe(201);
      await remove(asProcess.body.workloadId);
    }, 60000);
  });
});
