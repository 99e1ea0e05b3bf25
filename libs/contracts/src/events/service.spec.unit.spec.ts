import { ValidationError } from '../errors';
import { parseOrThrow } from '../validation';
import { PROBE_PORT_UNKNOWN, portVariable, runtimeOf } from './service.spec';
import { workloadSpecSchema } from './workload.spec';

const resources = { cpuMillis: 100, memoryBytes: 1 << 20 };
const processService = (extra: Record<string, unknown> = {}) => ({
  name: 'web',
  type: 'service',
  command: 'node',
  ports: [{ name: 'http' }],
  readinessProbe: { http: { path: '/healthz', port: 'http' } },
  resources,
  ...extra,
});
const containerService = (extra: Record<string, unknown> = {}) => ({
  name: 'web',
  type: 'service',
  image: 'localhost/hcn-busybox:latest',
  ports: [{ name: 'http', containerPort: 8080 }],
  livenessProbe: { tcp: { port: 8080 } },
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

describe('service specs', () => {
  it('fills in the runtime (an image: a container) and the restart policy `always`, probes with their defaults', () => {
    const parsed = workloadSpecSchema.parse(processService());
    expect(parsed).toMatchObject({ runtime: 'process', restartPolicy: { policy: 'always', maxRetries: 3 } });
    expect(parsed.readinessProbe).toEqual({
      http: { path: '/healthz', port: 'http' },
      initialDelaySeconds: 0,
      intervalSeconds: 10,
      timeoutSeconds: 1,
      successThreshold: 1,
      failureThreshold: 3,
    });
    expect(parsed.ports).toEqual([{ name: 'http', hostPort: 0, protocol: 'tcp' }]);
    expect(workloadSpecSchema.parse(containerService()).runtime).toBe('container');
    expect(runtimeOf({ type: 'service', image: 'x' })).toBe('container');
    expect(runtimeOf({ type: 'process' })).toBe('process');
    expect(workloadSpecSchema.parse({ name: 'job', command: 'true', resources }).restartPolicy.policy).toBe(
      'never',
    );
  });

  it('a probe on a port the spec does not expose is WORKLOAD.PROBE_PORT_UNKNOWN', () => {
    expect(refusal(processService({ readinessProbe: { tcp: { port: 'metrics' } } }))).toEqual({
      code: PROBE_PORT_UNKNOWN,
      issues: [`readinessProbe.tcp.port:${PROBE_PORT_UNKNOWN}`],
    });
    expect(refusal(containerService({ livenessProbe: { http: { port: 9090 } } })).code).toBe(
      PROBE_PORT_UNKNOWN,
    );
    // a process service names its ports, or probes a host port it fixes
    expect(refusal(processService({ readinessProbe: { tcp: { port: 8080 } } })).code).toBe(
      PROBE_PORT_UNKNOWN,
    );
    const fixed = processService({
      ports: [{ name: 'http', hostPort: 18080 }],
      readinessProbe: { tcp: { port: 18080 } },
    });
    expect(workloadSpecSchema.parse(fixed).readinessProbe?.tcp?.port).toBe(18080);
    // http and tcp probes need a TCP port
    const udp = processService({
      ports: [{ name: 'dns', protocol: 'udp' }],
      readinessProbe: { tcp: { port: 'dns' } },
    });
    expect(refusal(udp).code).toBe(PROBE_PORT_UNKNOWN);
    // an exec probe names no port
    expect(
      workloadSpecSchema.safeParse(processService({ livenessProbe: { exec: { command: ['true'] } } }))
        .success,
    ).toBe(true);
  });

  it('refuses the other shape errors with the spec code, per field', () => {
    expect(refusal(processService({ ports: [{ hostPort: 0 }], readinessProbe: undefined }))).toEqual({
      code: 'WORKLOAD.SPEC',
      issues: ['ports.0.name:WORKLOAD.SPEC.CUSTOM'],
    });
    expect(refusal(processService({ ports: [{ name: 'http' }, { name: 'http' }] })).issues).toEqual([
      'ports.1.name:WORKLOAD.SPEC.CUSTOM',
    ]);
    expect(refusal(processService({ ports: [{ name: 'http', containerPort: 80 }] })).issues).toEqual([
      'ports.0.containerPort:WORKLOAD.SPEC.CUSTOM',
    ]);
    expect(refusal(containerService({ ports: [{ name: 'http' }], livenessProbe: undefined })).issues).toEqual(
      ['ports.0.containerPort:WORKLOAD.SPEC.INVALID_TYPE'],
    );
    expect(refusal(processService({ ports: [{ name: 'HTTP' }] })).issues).toContain(
      'ports.0.name:WORKLOAD.SPEC.INVALID_FORMAT',
    );
    expect(refusal(processService({ command: undefined })).issues).toEqual([
      'command:WORKLOAD.SPEC.INVALID_TYPE',
    ]);
    expect(refusal(processService({ runtime: 'container' })).issues).toEqual([
      'image:WORKLOAD.SPEC.INVALID_TYPE',
      'ports.0.containerPort:WORKLOAD.SPEC.INVALID_TYPE',
    ]);
    expect(refusal(processService({ runtime: 'process', image: 'x' })).issues).toEqual([
      'image:WORKLOAD.SPEC.CUSTOM',
    ]);
    expect(
      refusal(processService({ readinessProbe: { tcp: { port: 'http' }, exec: { command: ['true'] } } }))
        .issues,
    ).toEqual(['readinessProbe:WORKLOAD.SPEC.CUSTOM']);
    expect(refusal(processService({ readinessProbe: { intervalSeconds: 1 } })).issues).toEqual([
      'readinessProbe:WORKLOAD.SPEC.CUSTOM',
    ]);
    expect(
      refusal(processService({ livenessProbe: { tcp: { port: 'http' }, failureThreshold: 0 } })).issues,
    ).toEqual(['livenessProbe.failureThreshold:WORKLOAD.SPEC.TOO_SMALL']);
    expect(
      refusal(processService({ readinessProbe: { http: { port: 'http', path: 'no-slash' } } })).issues,
    ).toEqual(['readinessProbe.http.path:WORKLOAD.SPEC.INVALID_FORMAT']);
  });

  it('probes, a runtime and process ports belong to services only', () => {
    const job = { name: 'job', command: 'true', resources };
    expect(refusal({ ...job, readinessProbe: { tcp: { port: 80 } } }).issues).toEqual([
      'readinessProbe:WORKLOAD.SPEC.CUSTOM',
    ]);
    expect(refusal({ ...job, runtime: 'process' }).issues).toEqual(['runtime:WORKLOAD.SPEC.CUSTOM']);
    expect(refusal({ ...job, ports: [{ name: 'http' }] }).issues).toEqual(['ports:WORKLOAD.SPEC.CUSTOM']);
    // a plain container keeps its rules: ports need a containerPort, a name is optional
    const box = { name: 'box', type: 'container', image: 'x', resources };
    expect(workloadSpecSchema.safeParse({ ...box, ports: [{ containerPort: 80 }] }).success).toBe(true);
    expect(refusal({ ...box, ports: [{ hostPort: 80 }] }).issues).toEqual([
      'ports.0.containerPort:WORKLOAD.SPEC.INVALID_TYPE',
    ]);
  });

  it('names the port variable of a named port', () => {
    expect(portVariable('http')).toBe('HCN_PORT_HTTP');
    expect(portVariable('http-alt')).toBe('HCN_PORT_HTTP_ALT');
  });
});
