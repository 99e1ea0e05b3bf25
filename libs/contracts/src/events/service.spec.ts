import { z } from 'zod';
import type { Runtime } from './container.spec';
import { modelServicePort } from './model.spec';

/** A named port's name (an IANA service name: a-z, 0-9 and dashes, a letter first, at most 15 characters). */
export const portNameSchema = z
  .string()
  .regex(/^[a-z]([a-z0-9-]{0,13}[a-z0-9])?$/, 'port names: a-z, 0-9, dashes, a letter first, at most 15');

/** Where a probe connects: a named port of the spec, or a port number it declares. */
export const probePortSchema = z.union([portNameSchema, z.number().int().min(1).max(65535)]);

/** An HTTP GET on a port of the allocation (on the node's loopback); any status from 200 to 399 passes. */
const httpProbeSchema = z
  .object({
    path: z
      .string()
      .max(1024)
      .regex(/^\/[\x21-\x7e]*$/, 'an absolute path of printable characters')
      .default('/'),
    port: probePortSchema,
  })
  .strict();

/** A TCP connect to a port of the allocation (on the node's loopback); passes when the connection opens. */
const tcpProbeSchema = z.object({ port: probePortSchema }).strict();

/** A command run inside the allocation (its user, directory and environment; a container's exec); exit 0 passes. */
const execProbeSchema = z.object({ command: z.array(z.string().min(1).max(4096)).min(1).max(64) }).strict();

/**
 * A health check the agent runs against an allocation: exactly one of `http`, `tcp` or `exec`, first after
 * `initialDelaySeconds`, then every `intervalSeconds` (counted from the end of the previous check), each given
 * `timeoutSeconds`; `successThreshold` passes in a row make it pass, `failureThreshold` failures in a row fail it.
 */
export const probeSchema = z
  .object({
    http: httpProbeSchema.optional(),
    tcp: tcpProbeSchema.optional(),
    exec: execProbeSchema.optional(),
    initialDelaySeconds: z.number().min(0).max(3600).default(0),
    intervalSeconds: z.number().min(0.1).max(3600).default(10),
    timeoutSeconds: z.number().min(0.1).max(600).default(1),
    successThreshold: z.number().int().min(1).max(100).default(1),
    failureThreshold: z.number().int().min(1).max(100).default(3),
  })
  .strict()
  .refine((p) => [p.http, p.tcp, p.exec].filter((kind) => kind !== undefined).length === 1, {
    message: 'a probe has exactly one of http, tcp or exec',
  });
/** A health check as stored (defaults applied). */
export type Probe = z.output<typeof probeSchema>;

/** A port of a service as the agent sees it: named; a container's port inside, and the host port (0: any free). */
export const servicePortSchema = z.object({
  name: portNameSchema,
  /** Containers: the port inside. Processes listen on the host port itself. */
  containerPort: z.number().int().min(1).max(65535).optional(),
  hostPort: z.number().int().min(0).max(65535),
  protocol: z.enum(['tcp', 'udp']),
});
/** A port of a service as the agent sees it. */
export type ServicePort = z.output<typeof servicePortSchema>;

/** What the agent needs to run a placement as a service: its named ports and its probes. */
export const servicePlacementSchema = z.object({
  ports: z.array(servicePortSchema).max(64),
  readinessProbe: probeSchema.optional(),
  livenessProbe: probeSchema.optional(),
});
/** What the agent needs to run a placement as a service. */
export type ServicePlacement = z.output<typeof servicePlacementSchema>;

/** The reason an agent gives when it stopped an allocation whose liveness probe failed (a stable prefix). */
export const LIVENESS_FAILED = 'PROBE.LIVENESS_FAILED';
/** The error code of a probe that names a port the spec does not expose. */
export const PROBE_PORT_UNKNOWN = 'WORKLOAD.PROBE_PORT_UNKNOWN';

/** The environment variable that tells a service the port named `name` (`http-alt` -> `HCN_PORT_HTTP_ALT`). */
export function portVariable(name: string): string {
  return `HCN_PORT_${name.toUpperCase().replace(/-/g, '_')}`;
}

/** True for the types that run as services (named ports, probes, endpoints, rolling update): services and models. */
export function isServiceType(type: string | undefined): boolean {
  return type === 'service' || type === 'model';
}

/** The runtime a workload runs with: containers in a container; services and models as they say (an image: a container). */
export function runtimeOf(spec: { type: string; runtime?: Runtime; image?: string }): Runtime {
  if (spec.type === 'container') return 'container';
  if (isServiceType(spec.type)) return spec.runtime ?? (spec.image ? 'container' : 'process');
  return 'process';
}

/** A port of a spec as the service rules read it. */
type SpecPort = { name?: string; containerPort?: number; hostPort?: number; protocol?: string };

/** The parts of a workload spec the service rules read. */
export interface ServiceShape {
  type: string;
  runtime?: Runtime;
  image?: string;
  ports?: readonly SpecPort[];
  /** A model's server port (its one port, `http`). */
  port?: number;
  readinessProbe?: Probe;
  livenessProbe?: Probe;
}

/** A service's ports as written; a model's one port `http` (see modelServicePort). */
export function servicePortsOf<P extends SpecPort>(
  spec: ServiceShape & { ports?: readonly P[] },
): readonly (P | ReturnType<typeof modelServicePort>)[] {
  return spec.type === 'model' ? [modelServicePort(runtimeOf(spec), spec.port)] : (spec.ports ?? []);
}

/** True when the spec's replicas are ready only once a probe passes: a readiness probe, or a model (always probed). */
export function readinessProbed(spec: ServiceShape): boolean {
  return spec.type === 'model' || spec.readinessProbe !== undefined;
}

/**
 * Service rules: every port of a service is named (names unique), a process service's ports are host ports (no
 * containerPort), a container's have a containerPort, and a probe's port names one of the spec's ports or a port
 * number it declares (WORKLOAD.PROBE_PORT_UNKNOWN; a model's one port is `http`). Only services and models take probes
 * and a runtime.
 */
export function checkServiceFields(spec: ServiceShape, ctx: z.RefinementCtx): void {
  const issue = (path: (string | number)[], message: string, params?: Record<string, unknown>): void =>
    ctx.addIssue({ code: 'custom', path, message, ...(params ? { params } : {}) });
  if (!isServiceType(spec.type)) {
    for (const field of ['runtime', 'readinessProbe', 'livenessProbe'] as const)
      if (spec[field] !== undefined) issue([field], 'only services and models take this field');
    return;
  }
  const container = runtimeOf(spec) === 'container';
  const names = new Set<string>();
  const ports = servicePortsOf(spec);
  (spec.type === 'model' ? [] : ports).forEach((port, i) => {
    if (port.name === undefined) issue(['ports', i, 'name'], "a service's ports are named");
    else if (names.has(port.name)) issue(['ports', i, 'name'], `port name ${port.name} is used twice`);
    else names.add(port.name);
    if (!container && port.containerPort !== undefined)
      issue(['ports', i, 'containerPort'], 'a process service listens on its host port: no containerPort');
  });
  // http and tcp probes connect over TCP: a UDP port is none they can reach
  const tcpPorts = ports.filter((p) => (p.protocol ?? 'tcp') === 'tcp');
  const tcpNames = new Set(tcpPorts.map((p) => p.name));
  const numbers = new Set(tcpPorts.map((p) => (container ? p.containerPort : p.hostPort)).filter((n) => !!n));
  for (const field of ['readinessProbe', 'livenessProbe'] as const) {
    const probe = spec[field];
    const target = probe?.http ?? probe?.tcp;
    if (!target) continue;
    const known = typeof target.port === 'string' ? tcpNames.has(target.port) : numbers.has(target.port);
    if (!known)
      issue(
        [field, probe?.http ? 'http' : 'tcp', 'port'],
        `port ${target.port} is not one of the spec's TCP ports${typeof target.port === 'number' && !container ? ' (a process service probes a fixed hostPort or a port name)' : ''}`,
        { code: PROBE_PORT_UNKNOWN },
      );
  }
}
