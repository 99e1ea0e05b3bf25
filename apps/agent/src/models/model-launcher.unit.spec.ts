import { SKLEARN_PREDICTOR } from '@hcn/platform';
import { modelsFileSchema } from './model-config';
import { modelFileName, shownUrl } from './model-download';
import { ModelFrameworks, builtinSklearnEntry } from './model-frameworks';
import { defaultModelProbe, servingPlacement } from './model-launcher';

const placement = (runtime: 'process' | 'container', extra: Record<string, unknown> = {}) => ({
  workloadId: '00000000-0000-4000-8000-000000000001',
  allocationId: '00000000-0000-4000-8000-0000000000a1',
  instance: 0,
  attempt: 0,
  command: '',
  args: [],
  env: { THREADS: '2' },
  stopGraceSeconds: 5,
  service: {
    ports: [
      runtime === 'container'
        ? { name: 'http', containerPort: 9000, hostPort: 0, protocol: 'tcp' as const }
        : { name: 'http', hostPort: 0, protocol: 'tcp' as const },
    ],
  },
  model: { framework: 'onnx', runtime, namespace: 'team-a', modelPath: '/srv/m/iris.onnx' },
  ...extra,
});

describe('model serving placements', () => {
  const config = modelsFileSchema.parse({
    onnx: {
      image: 'registry.local/onnx-server:1',
      args: ['--model', '{model}', '--port', '{port}'],
      healthPath: '/v2/health/ready',
      env: { MODEL_DIR: '{model}', THREADS: '8' },
    },
    echo: { command: '/usr/local/bin/serve', args: ['{model}', '--listen=:{port}'] },
  });

  it('fills a process server: {model} is the path on the node, {port} the host port; the spec env wins', () => {
    const entry = { ...config.echo, runtime: 'process' as const };
    const { placement: p, mounts } = servingPlacement(placement('process'), entry, '/srv/m/iris.onnx', 40123);
    expect(p).toMatchObject({
      command: '/usr/local/bin/serve',
      args: ['/srv/m/iris.onnx', '--listen=:40123'],
      env: { THREADS: '2', HCN_MODEL_PATH: '/srv/m/iris.onnx', HCN_MODEL_FRAMEWORK: 'onnx' },
      service: {
        ports: [{ name: 'http', hostPort: 40123, protocol: 'tcp' }],
        readinessProbe: { tcp: { port: 'http' }, intervalSeconds: 1 },
      },
    });
    expect(p.model).toBeUndefined();
    expect(p.container).toBeUndefined();
    expect(mounts).toEqual([]);
  });

  it('fills a container server: its image, the model mounted read-only under /models, the health path probed', () => {
    const entry = { ...config.onnx, runtime: 'container' as const };
    const { placement: p, mounts } = servingPlacement(
      placement('container'),
      entry,
      '/srv/m/iris.onnx',
      9000,
    );
    expect(p).toMatchObject({
      command: '',
      args: ['--model', '/models/iris.onnx', '--port', '9000'],
      env: { MODEL_DIR: '/models/iris.onnx', THREADS: '2', HCN_MODEL_PATH: '/models/iris.onnx' },
      container: {
        namespace: 'team-a',
        image: 'registry.local/onnx-server:1',
        pullPolicy: 'ifNotPresent',
        ports: [{ name: 'http', containerPort: 9000, hostPort: 0, protocol: 'tcp' }],
        volumes: [],
      },
      service: { readinessProbe: { http: { path: '/v2/health/ready', port: 'http' } } },
    });
    expect(mounts).toEqual([{ source: '/srv/m/iris.onnx', target: '/models/iris.onnx', readOnly: true }]);
  });

  it("keeps the spec's readiness probe over the framework's", () => {
    const probe = { ...defaultModelProbe('/custom', 'http'), intervalSeconds: 7 };
    const p = placement('container');
    const { placement: filled } = servingPlacement(
      { ...p, service: { ...p.service, readinessProbe: probe } },
      { ...config.onnx, runtime: 'container' },
      '/srv/m/iris.onnx',
      9000,
    );
    expect(filled.service?.readinessProbe).toEqual(probe);
  });

  it('serves configured frameworks with the runtime their entry says; the built-in sklearn with processes', async () => {
    const frameworks = new ModelFrameworks(config, undefined, () => undefined);
    expect(frameworks.served(['process'])).toEqual([{ framework: 'echo', runtimes: ['process'] }]);
    expect(frameworks.served(['container', 'process'])).toEqual([
      { framework: 'echo', runtimes: ['process'] },
      { framework: 'onnx', runtimes: ['container'] },
    ]);
    expect(frameworks.entry('onnx', 'container')?.image).toBe('registry.local/onnx-server:1');
    expect(frameworks.entry('onnx', 'process')).toBeUndefined();
    expect(frameworks.entry('sklearn', 'process')).toBeUndefined();
    expect(builtinSklearnEntry('/opt/py/bin/python')).toEqual({
      command: '/opt/py/bin/python',
      args: [SKLEARN_PREDICTOR, '--model', '{model}', '--port', '{port}', '--host', '0.0.0.0'],
      healthPath: '/healthz',
      env: {},
    });
  });

  it('refuses a serving entry with neither command nor image', () => {
    expect(modelsFileSchema.safeParse({ torch: { args: ['x'] } }).success).toBe(false);
    expect(modelsFileSchema.safeParse({ Torch: { command: 'x' } }).success).toBe(false);
  });

  it.each([
    ['http://h/models/iris.joblib', 'iris.joblib'],
    ['https://h/a/b/model%20v2.onnx?sig=x', 'model_v2.onnx'],
    ['https://h/', 'model'],
    ['https://h/..', 'model'],
    ['https://h/.hidden', 'hidden'],
  ])('names the download of %s %s', (url, name) => {
    expect(modelFileName(url)).toBe(name);
  });

  it('shows a URL in a reason without its query, at most 200 characters', () => {
    expect(shownUrl('https://h/m/iris.onnx?X-Amz-Signature=secret')).toBe('https://h/m/iris.onnx?…');
    expect(shownUrl(`https://h/${'a'.repeat(300)}`)).toHaveLength(200);
  });
});
