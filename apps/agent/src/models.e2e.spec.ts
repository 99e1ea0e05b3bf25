import {
  FIELD_NOT_ALLOWED,
  MODEL_FAILURES,
  MODEL_PATH_INVALID,
  MODEL_SOURCE_CONFLICT,
  MODEL_SOURCE_REQUIRED,
  MODEL_URL_INVALID,
  workloadStream,
} from '@hcn/contracts';
import { MemoryMessageBus } from '@hcn/messaging';
import { MODEL_FRAMEWORK_UNAVAILABLE } from '@hcn/scheduling';
import { describeWithPostgres, describeWithSklearn, eventuallyExpect, testSklearnPython } from '@hcn/testing';
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { Server, createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import {
  HubHarness,
  TEST_JOIN_TOKEN,
  startHubHarness,
  submittedWorkloads,
} from '../../hub/src/testing/hub-harness';
import { Agent } from './agent';
import { loadAgentConfig } from './config';

/** POST JSON over HTTP: status and parsed body. */
function postJson(url: string, body: unknown): Promise<{ status: number; body: { predictions?: number[] } }> {
  return new Promise((done, fail) => {
    const req = request(url, { method: 'POST', headers: { 'content-type': 'application/json' } }, (res) => {
      let text = '';
      res.on('data', (chunk) => (text += chunk));
      res.on('end', () => done({ status: res.statusCode ?? 0, body: JSON.parse(text || 'null') }));
    });
    req.on('error', fail);
    req.end(JSON.stringify(body));
  });
}

/** Points on both sides of x0 + x1 = 1: the first model says [0, 1, 0, 1], the inverted one [1, 0, 1, 0]. */
const INSTANCES = [
  [0, 0],
  [1, 1],
  [0.2, 0.3],
  [0.9, 0.8],
];

/**
 * Model serving through the whole path (CNET's mlmodel): a `type: "model"` spec, the scheduler's framework filter, a
 * real agent serving framework `sklearn` with the built-in server on the real scikit-learn runtime, the endpoint
 * reported in the API, real predictions over HTTP, and a rolling update to a second model.
 */
describeWithSklearn('model serving (real scikit-learn)', () => {
  describeWithPostgres('hub + real agent, real PostgreSQL, in-process bus', () => {
    let dataDir: string;
    let modelDir: string;
    let h: HubHarness;
    let agent: Agent;
    let files: Server;
    let filesUrl: string;
    const bus = new MemoryMessageBus();
    const model = (name: string, invert = false): string => {
      const path = join(modelDir, name);
      const made = spawnSync(
        testSklearnPython(),
        [
          resolve(__dirname, '../../../test/support/make_sklearn_model.py'),
          path,
          ...(invert ? ['--invert'] : []),
        ],
        { encoding: 'utf8' },
      );
      expect(made.stderr).toBe('');
      chmodSync(path, 0o644);
      return path;
    };

    beforeAll(async () => {
      dataDir = mkdtempSync(join(tmpdir(), 'hcn-agent-models-'));
      modelDir = mkdtempSync(join(tmpdir(), 'hcn-models-'));
      chmodSync(modelDir, 0o755);
      model('v1.joblib');
      model('v2.joblib', true);
      // a file server for modelUrl: the model, a big blob, 404 for the rest
      files = createServer((req, res) => {
        if (req.url === '/models/iris.joblib') return res.end(readFileSync(join(modelDir, 'v1.joblib')));
        if (req.url === '/big.bin') return res.end(Buffer.alloc(3 * 2 ** 20));
        res.writeHead(404).end('no such model');
      });
      await new Promise<void>((r) => files.listen(0, '127.0.0.1', r));
      filesUrl = `http://127.0.0.1:${(files.address() as AddressInfo).port}`;
      h = await startHubHarness({ HCN_NODE_TTL_SECONDS: '30', HCN_HEARTBEAT_INTERVAL_SECONDS: '1' }, bus);
      const config = loadAgentConfig({
        HCN_HUB_URL: h.hub.url,
        HCN_JOIN_TOKEN: TEST_JOIN_TOKEN,
        HCN_DOMAIN: 'site-models',
        HCN_DATA_DIR: dataDir,
        HCN_ADVERTISE_ADDRESS: '127.0.0.1',
        HCN_SKLEARN_PYTHON: testSklearnPython(),
        HCN_MODEL_MAX_BYTES: String(2 ** 20),
        // the test runtime lives in root's private home when the suite runs as root: the workload user could not
        // reach it, so the agent serves as itself here (isolation has its own specs)
        HCN_PROCESS_USER: 'none',
      });
      agent = new Agent(config, bus);
      await agent.start();
    }, 60000);
    afterAll(async () => {
      await agent?.stop();
      await h?.close();
      await bus.close();
      files?.closeAllConnections();
      await new Promise((r) => files?.close(r));
      rmSync(dataDir, { recursive: true, force: true });
      rmSync(modelDir, { recursive: true, force: true });
    });

    const spec = (extra: Record<string, unknown> = {}) => ({
      name: 'iris',
      type: 'model',
      framework: 'sklearn',
      modelPath: join(modelDir, 'v1.joblib'),
      resources: { cpuMillis: 100, memoryBytes: 2 ** 29 },
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
    const predictions = async (endpoint: string) => {
      const answer = await postJson(`http://${endpoint}/v1/predict`, { instances: INSTANCES });
      expect(answer.status).toBe(200);
      return answer.body.predictions;
    };

    it('registers framework sklearn, served by processes', async () => {
      const registrations = (await h.store.readStream(`node-${agent.nodeId}`)).filter((e) =>
        ['NodeRegistered', 'NodeReregistered'].includes(e.type),
      );
      expect(registrations.at(-1)?.data).toMatchObject({
        modelFrameworks: [{ framework: 'sklearn', runtimes: ['process'] }],
      });
    });

    it('deploys a model, predicts at its endpoint, and a PUT with another model rolls the replicas over', async () => {
      const id = await submit(spec({ replicas: 2 }));
      await eventuallyExpect(async () => expect((await view(id)).service.readyReplicas).toBe(2), 30000);
      const ready = await view(id);
      expect(ready.service).toMatchObject({ runtime: 'process', replicas: 2 });
      expect(ready.service.endpoints.http).toHaveLength(2);
      for (const endpoint of ready.service.endpoints.http as string[]) {
        expect(endpoint).toMatch(/^127\.0\.0\.1:\d+$/);
        expect(await predictions(endpoint)).toEqual([0, 1, 0, 1]);
      }
      // readiness came from the framework's health path: each replica got ready only after it started
      const log = await events(id);
      expect(log.filter((e) => e.type === 'AllocationReady')).toHaveLength(2);
      const listed = (await h.request('GET', '/v1/services?name=iris')).body;
      expect(listed.items.find((s: { workloadId: string }) => s.workloadId === id)).toMatchObject({
        ports: [{ name: 'http' }],
      });

      const updated = await h.request(
        'PUT',
        `/v1/workloads/${id}`,
        spec({ replicas: 2, modelPath: join(modelDir, 'v2.joblib') }),
      );
      expect(updated.status).toBeLessThan(300);
      await eventuallyExpect(async () => {
        const v = await view(id);
        expect(v.service.ready.map((r: { generation: number }) => r.generation)).toEqual([2, 2]);
      }, 60000);
      const rolled = await view(id);
      for (const endpoint of rolled.service.endpoints.http as string[])
        expect(await predictions(endpoint)).toEqual([1, 0, 1, 0]);
      const stops = (await events(id)).filter((e) => e.type === 'AllocationStopRequested');
      expect(stops.map((e) => (e.data as { reason: string }).reason)).toEqual([
        expect.stringMatching(/^rolling update \(instance 0/),
        expect.stringMatching(/^rolling update \(instance 1/),
      ]);
      await remove(id);
    }, 120000);

    it('downloads a modelUrl into the allocation directory and serves it', async () => {
      const id = await submit(
        spec({ name: 'iris-url', modelPath: undefined, modelUrl: `${filesUrl}/models/iris.joblib` }),
      );
      await eventuallyExpect(async () => expect((await view(id)).service.readyReplicas).toBe(1), 30000);
      const v = await view(id);
      expect(await predictions(v.service.endpoints.http[0])).toEqual([0, 1, 0, 1]);
      const allocationId = v.service.ready[0].allocationId;
      expect(existsSync(join(dataDir, 'allocations', allocationId, 'model', 'iris.joblib'))).toBe(true);
      await remove(id);
    }, 60000);

    it.each<[string, Record<string, unknown>, string]>([
      [
        'a modelPath missing on the node',
        { modelPath: '/nonexistent/model.joblib' },
        MODEL_FAILURES.notFound,
      ],
      [
        'a modelUrl that answers 404',
        { modelPath: undefined, modelUrl: 'FILES/missing.joblib' },
        MODEL_FAILURES.downloadFailed,
      ],
      [
        'a modelUrl over the cap',
        { modelPath: undefined, modelUrl: 'FILES/big.bin' },
        MODEL_FAILURES.downloadTooLarge,
      ],
    ])(
      'fails the allocation with a stable reason for %s',
      async (_name, extra, code) => {
        const url =
          typeof extra.modelUrl === 'string' ? { modelUrl: extra.modelUrl.replace('FILES', filesUrl) } : {};
        const id = await submit(
          spec({ name: 'broken', restartPolicy: { policy: 'never' }, ...extra, ...url }),
        );
        await eventuallyExpect(async () => {
          const failed = (await events(id)).find((e) => e.type === 'AllocationFailed');
          expect((failed?.data as { reason?: string } | undefined)?.reason).toMatch(
            new RegExp(`^${code.replace('.', '\\.')}: `),
          );
        }, 30000);
        await remove(id);
      },
      45000,
    );

    it('a framework no node serves stays unschedulable, the filter’s reason in its hops', async () => {
      const id = await submit(spec({ name: 'onnx-model', framework: 'onnx' }));
      await eventuallyExpect(async () => {
        expect((await events(id)).map((e) => e.type)).toContain('WorkloadUnschedulable');
      }, 15000);
      const recorded = JSON.stringify((await events(id)).map((e) => e.data));
      expect(recorded).toContain(MODEL_FRAMEWORK_UNAVAILABLE);
      // the compact record keeps the reason; its detail is derived by replaying the decision
      const explained = await h.request('GET', `/v1/audit/workloads/${id}/explain?decision=0`);
      expect([explained.status, explained.body.matches]).toEqual([200, true]);
      expect(JSON.stringify(explained.body.derived)).toContain(
        `node ${agent.nodeId} serves sklearn (process), not onnx (process)`,
      );
      expect((await events(id)).map((e) => e.type)).not.toContain('AllocationPlaced');
      await remove(id);
    }, 30000);

    it('refuses bad model specs with 400 and a dotted code, writing nothing', async () => {
      const before = await submittedWorkloads(h);
      const cases: [Record<string, unknown>, string][] = [
        [{ modelPath: undefined }, MODEL_SOURCE_REQUIRED],
        [{ modelUrl: 'http://x/m.joblib' }, MODEL_SOURCE_CONFLICT],
        [{ modelPath: 'models/model.joblib' }, MODEL_PATH_INVALID],
        [{ modelPath: undefined, modelUrl: 'ftp://x/m.joblib' }, MODEL_URL_INVALID],
        [{ port: 70000 }, 'WORKLOAD.SPEC'],
        [{ command: 'python3' }, FIELD_NOT_ALLOWED],
        [{ framework: undefined }, 'WORKLOAD.SPEC'],
      ];
      for (const [extra, code] of cases) {
        const response = await h.request('POST', '/v1/workloads', spec(extra));
        expect([response.status, response.body.code]).toEqual([400, code]);
      }
      const job = { name: 'job', command: 'true', resources: { cpuMillis: 10, memoryBytes: 2 ** 20 } };
      const foreign = await h.request('POST', '/v1/workloads', { ...job, framework: 'sklearn' });
      expect([foreign.status, foreign.body.code]).toEqual([400, FIELD_NOT_ALLOWED]);
      expect(await submittedWorkloads(h)).toBe(before);
    }, 30000);
  });
});
