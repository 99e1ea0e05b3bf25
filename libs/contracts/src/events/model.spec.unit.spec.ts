import { ValidationError } from '../errors';
import { parseOrThrow } from '../validation';
import {
  FIELD_NOT_ALLOWED,
  MODEL_PATH_INVALID,
  MODEL_SOURCE_CONFLICT,
  MODEL_SOURCE_REQUIRED,
  MODEL_URL_INVALID,
  isModelUrl,
} from './model.spec';
import { PROBE_PORT_UNKNOWN, readinessProbed, servicePortsOf } from './service.spec';
import { placementNeedsOf, workloadSpecSchema } from './workload.spec';

const resources = { cpuMillis: 100, memoryBytes: 1 << 20 };
/** CNET's mlmodel example, as an HCN model spec. */
const model = (extra: Record<string, unknown> = {}) => ({
  name: 'iris',
  type: 'model',
  modelPath: '/srv/models/model.joblib',
  framework: 'sklearn',
  resources,
  ...extra,
});

/** The error's code and each issue's path and code. */
function refusal(spec: unknown): { code: string; issues: string[] } {
  try {
    parseOrThrow(workloadSpecSchema, spec, 'WORKLOAD.SPEC', 'Spec');
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    return { code: error.code, issues: error.issues.map((i) => `${i.path}:${i.code}`) };
  }
  throw new Error('the spec was accepted');
}

describe('model specs', () => {
  it('runs as a service: process by default, restart policy always, one port named http', () => {
    const parsed = workloadSpecSchema.parse(model());
    expect(parsed).toMatchObject({
      type: 'model',
      runtime: 'process',
      framework: 'sklearn',
      modelPath: '/srv/models/model.joblib',
      restartPolicy: { policy: 'always' },
      replicas: 1,
      args: [],
    });
    expect(parsed.port).toBeUndefined();
    expect(readinessProbed(parsed)).toBe(true); // a model is always probed (its framework's health path)
    // a process listens on its port, or a free one the agent picks; a container on its port (default 9000)
    expect(servicePortsOf(parsed)).toEqual([{ name: 'http', hostPort: 0, protocol: 'tcp' }]);
    expect(servicePortsOf(workloadSpecSchema.parse(model({ port: 9100 })))).toEqual([
      { name: 'http', hostPort: 9100, protocol: 'tcp' },
    ]);
    const container = workloadSpecSchema.parse(model({ runtime: 'container' }));
    expect(servicePortsOf(container)).toEqual([
      { name: 'http', containerPort: 9000, hostPort: 0, protocol: 'tcp' },
    ]);
    expect(placementNeedsOf(container)).toEqual({ runtime: 'container', modelFramework: 'sklearn' });
    expect(placementNeedsOf(parsed)).toEqual({ modelFramework: 'sklearn' });
    expect(placementNeedsOf(workloadSpecSchema.parse({ name: 'job', command: 'true', resources }))).toEqual(
      {},
    );
  });

  it('takes a URL instead of a path, replicas, accelerators and probe overrides on its port', () => {
    const parsed = workloadSpecSchema.parse(
      model({
        modelPath: undefined,
        modelUrl: 'https://models.example.org/iris/model.onnx?v=2',
        framework: 'onnx',
        replicas: 3,
        port: 8080,
        resources: { ...resources, accelerators: 1 },
        readinessProbe: { http: { path: '/v2/health/ready', port: 'http' }, intervalSeconds: 2 },
        livenessProbe: { tcp: { port: 8080 } },
        env: { OMP_NUM_THREADS: '2' },
      }),
    );
    expect(parsed).toMatchObject({ replicas: 3, modelUrl: 'https://models.example.org/iris/model.onnx?v=2' });
    expect(parsed.readinessProbe?.http?.path).toBe('/v2/health/ready');
  });

  it.each<[string, Record<string, unknown>, string, string[]]>([
    [
      'neither modelPath nor modelUrl',
      { modelPath: undefined },
      MODEL_SOURCE_REQUIRED,
      [`modelPath:${MODEL_SOURCE_REQUIRED}`],
    ],
    [
      'both modelPath and modelUrl',
      { modelUrl: 'http://x/m' },
      MODEL_SOURCE_CONFLICT,
      [`modelUrl:${MODEL_SOURCE_CONFLICT}`],
    ],
    [
      'a relative modelPath',
      { modelPath: 'models/model.joblib' },
      MODEL_PATH_INVALID,
      [`modelPath:${MODEL_PATH_INVALID}`],
    ],
    [
      'a modelPath with ..',
      { modelPath: '/srv/../etc/shadow' },
      MODEL_PATH_INVALID,
      [`modelPath:${MODEL_PATH_INVALID}`],
    ],
    ...['ftp://x/m', 'file:///srv/m', 'not a url', 'https://user:secret@x/m'].map(
      (url): [string, Record<string, unknown>, string, string[]] => [
        `a model URL ${url}`,
        { modelPath: undefined, modelUrl: url },
        MODEL_URL_INVALID,
        [`modelUrl:${MODEL_URL_INVALID}`],
      ],
    ),
    ['port 0', { port: 0 }, 'WORKLOAD.SPEC', ['port:WORKLOAD.SPEC.TOO_SMALL']],
    ['port 65536', { port: 65536 }, 'WORKLOAD.SPEC', ['port:WORKLOAD.SPEC.TOO_BIG']],
    ['no framework', { framework: undefined }, 'WORKLOAD.SPEC', ['framework:WORKLOAD.SPEC.INVALID_TYPE']],
    [
      'a framework with capitals',
      { framework: 'SKLearn' },
      'WORKLOAD.SPEC',
      ['framework:WORKLOAD.SPEC.INVALID_FORMAT'],
    ],
    ...(
      [
        ['command', 'python3'],
        ['args', ['serve.py']],
        ['image', 'localhost/server:1'],
        ['ports', [{ name: 'http' }]],
        ['volumes', [{ source: '/srv', target: '/srv' }]],
        ['workingDir', 'x'],
      ] as const
    ).map(([field, value]): [string, Record<string, unknown>, string, string[]] => [
      `a ${field} (the agent's configuration gives it)`,
      { [field]: value },
      FIELD_NOT_ALLOWED,
      [`${field}:${FIELD_NOT_ALLOWED}`],
    ]),
    [
      'a probe on a port a model has not',
      { readinessProbe: { http: { path: '/', port: 'metrics' } } },
      PROBE_PORT_UNKNOWN,
      [`readinessProbe.http.port:${PROBE_PORT_UNKNOWN}`],
    ],
    [
      'a probe on a port number a process model does not fix',
      { livenessProbe: { tcp: { port: 9000 } } },
      PROBE_PORT_UNKNOWN,
      [`livenessProbe.tcp.port:${PROBE_PORT_UNKNOWN}`],
    ],
  ])('refuses %s', (_name, extra, code, issues) => {
    expect(refusal(model(extra))).toEqual({ code, issues });
  });

  it('a container model is probed on its container port number', () => {
    const spec = model({ runtime: 'container', livenessProbe: { tcp: { port: 9000 } } });
    expect(workloadSpecSchema.safeParse(spec).success).toBe(true);
  });

  it("other types take none of a model's fields", () => {
    const job = { name: 'job', command: 'true', resources };
    for (const [field, value] of Object.entries({
      modelPath: '/m',
      modelUrl: 'http://x/m',
      framework: 'sklearn',
      port: 9000,
    }))
      expect(refusal({ ...job, [field]: value })).toEqual({
        code: FIELD_NOT_ALLOWED,
        issues: [`${field}:${FIELD_NOT_ALLOWED}`],
      });
    const service = { ...job, type: 'service', ports: [{ name: 'http' }] };
    expect(refusal({ ...service, framework: 'sklearn' }).code).toBe(FIELD_NOT_ALLOWED);
  });

  it('knows an http(s) model URL without credentials', () => {
    expect(isModelUrl('http://10.0.0.5:8000/m.joblib')).toBe(true);
    expect(isModelUrl('https://x.org/a/b.onnx?sig=abc')).toBe(true);
    expect(isModelUrl('https://u@x.org/m')).toBe(false);
    expect(isModelUrl('s3://bucket/m')).toBe(false);
  });
});
