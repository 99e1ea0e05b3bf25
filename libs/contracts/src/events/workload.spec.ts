import { isDeepStrictEqual } from 'node:util';
import { z } from 'zod';
import { domainIdSchema, nodeIdSchema } from './node.events';
import { namespaceSchema, resourcesSchema } from './resources.schemas';
import { deviceRequestSchema } from '../devices/device-request.schema';
import {
  imageSchema,
  portMappingSchema,
  pullPolicySchema,
  runtimeSchema,
  volumeSchema,
  type Runtime,
} from './container.spec';
import { checkServiceFields, isServiceType, probeSchema, runtimeOf } from './service.spec';
import { checkModelFields, frameworkNameSchema } from './model.spec';
import { compileLabelPattern } from '../util/label-pattern';
import { withStoredForm } from '../util/without-defaults';

/** One label constraint on the node a workload may run on; `regex` values are RE2 syntax, matched whole. */
export const labelConstraintSchema = z
  .object({
    key: z.string().min(1).max(63),
    op: z.enum(['=', '!=', 'regex', 'in', 'notin', 'exists']),
    value: z.string().max(256).optional(),
    values: z.array(z.string().max(128)).min(1).max(64).optional(),
  })
  .strict()
  .refine((c) => !['=', '!=', 'regex'].includes(c.op) || c.value !== undefined, {
    message: "operators =, != and regex need a 'value'",
    path: ['value'],
  })
  .refine((c) => !['in', 'notin'].includes(c.op) || c.values !== undefined, {
    message: "operators in and notin need 'values'",
    path: ['values'],
  })
  .superRefine((c, ctx) => {
    if (c.op !== 'regex' || c.value === undefined) return;
    const compiled = compileLabelPattern(c.value);
    if (!compiled.ok) {
      ctx.addIssue({
        code: 'custom',
        path: ['value'],
        message: `not a valid RE2 pattern: ${compiled.error}`,
      });
    }
  });

const affinitySchema = z
  .object({
    affinity: z.array(z.string().min(1).max(64)).max(64).default([]),
    antiAffinity: z.array(z.string().min(1).max(64)).max(64).default([]),
  })
  .strict();

/** Where a workload may (and prefers to) run. */
export const constraintsSchema = z
  .object({
    labels: z.array(labelConstraintSchema).max(64).default([]),
    // defaults as functions: a spec read without them gets arrays of its own, shared with no other spec
    domains: affinitySchema.default(() => ({ affinity: [], antiAffinity: [] })),
    regions: affinitySchema.default(() => ({ affinity: [], antiAffinity: [] })),
    nodeBlacklist: z.array(nodeIdSchema).max(1000).default([]),
    /** When given, only these nodes may run it (a task queue pins each node's instances this way). */
    nodes: z.array(nodeIdSchema).min(1).max(1000).optional(),
    preferDomains: z.array(domainIdSchema).max(64).default([]),
    preferRegions: z.array(z.string().min(1).max(64)).max(64).default([]),
  })
  .strict();

/** What to do when an allocation ends or its node is lost. */
export const restartPolicySchema = z
  .object({
    policy: z.enum(['never', 'on-failure', 'always']).default('never'),
    maxRetries: z.number().int().min(0).max(1000).default(3),
    backoffSeconds: z.number().min(0).max(3600).default(5),
  })
  .strict();
/** What to do when an allocation ends or its node is lost. */
export type RestartPolicy = z.output<typeof restartPolicySchema>;

/** The restart policy of a spec that names none: services and models are kept running (`always`), others `never`. */
export function defaultRestartPolicy(type: string): RestartPolicy {
  return { policy: isServiceType(type) ? 'always' : 'never', maxRetries: 3, backoffSeconds: 5 };
}

/**
 * Workload kinds; `process`, `container`, `service` (long-running, named ports, probes, endpoints; as a process or a
 * container) and `model` (a service whose server the agent picks by framework) run today, `batch` is reserved.
 */
export const WORKLOAD_TYPES = ['process', 'container', 'service', 'model', 'batch'] as const;
/** Workload kinds agents run today. */
export const RUNNABLE_WORKLOAD_TYPES: readonly string[] = ['process', 'container', 'service', 'model'];

/** Most environment entries one workload spec may carry (names ≤ 128 characters, values ≤ 32 KiB each). */
export const MAX_ENV_ENTRIES = 256;
/** Largest workload spec the hub admits, serialized as JSON (UTF-8 bytes, defaults applied). */
export const MAX_WORKLOAD_SPEC_BYTES = 256 * 1024;

/** The size of a spec serialized as JSON, in UTF-8 bytes (what its submission event carries). */
export function serializedSpecBytes(spec: unknown): number {
  return Buffer.byteLength(JSON.stringify(spec) ?? '', 'utf8');
}

const envName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]{0,127}$/, 'environment names: letters, digits, _');
const withoutDotDot = (p: string): boolean => !p.split('/').includes('..');
/** Fields only a container workload may carry. */
const CONTAINER_ONLY = ['image', 'pullPolicy', 'user', 'ports', 'volumes'] as const;

/**
 * The full, validated specification of a workload. Stored without what parsing fills back (`withoutDefaults`):
 * members equal to their default, the restart policy when it is its type's default, a service's runtime when it is
 * the one its image implies.
 */
const specSchema = z
  .object({
    name: z.string().regex(/^[a-z0-9]([a-z0-9.-]{0,61}[a-z0-9])?$/, 'names: a-z, 0-9, dots, dashes'),
    namespace: namespaceSchema.default('default'),
    type: z.enum(WORKLOAD_TYPES).default('process'),
    /** How a service or model runs (default: `container` when a service names an image, else `process`). */
    runtime: runtimeSchema.optional(),
    /** Models: the model file (or directory) on the node, an absolute path (or `modelUrl`). */
    modelPath: z.string().min(1).max(1024).optional(),
    /** Models: an http(s) URL the agent downloads the model from before it starts the server (or `modelPath`). */
    modelUrl: z.string().min(1).max(2048).optional(),
    /** Models: the framework (`sklearn`, `onnx`, `torch`, ...) whose server the agent's configuration names. */
    framework: frameworkNameSchema.optional(),
    /** Models: the port the server listens on (a container's: default 9000; a process's host port: default free). */
    port: z.number().int().min(1).max(65535).optional(),
    /** The program (process), or the entrypoint override (container; the image's when absent). */
    command: z.string().min(1).max(4096).optional(),
    args: z.array(z.string().max(4096)).max(256).default([]),
    env: z
      .record(envName, z.string().max(32768))
      .refine((env) => Object.keys(env).length <= MAX_ENV_ENTRIES, {
        message: `at most ${MAX_ENV_ENTRIES} environment entries`,
      })
      .default({}),
    /**
     * Environment entries whose values are secret: sealed by the hub before anything is stored (views, the log and
     * the change feed only ever hold the sealed text) and delivered sealed for the one node that runs it.
     */
    secretEnv: z
      .record(envName, z.string().max(65536))
      .refine((env) => Object.keys(env).length <= 64, { message: 'at most 64 secret environment entries' })
      .optional(),
    /** Process: relative to the allocation's directory. Container: an absolute path inside it. */
    workingDir: z.string().min(1).max(1024).refine(withoutDotDot, 'a path without ..').optional(),
    /** Container image (containers only, like the fields below). */
    image: imageSchema.optional(),
    /** When the agent pulls the image (default `ifNotPresent`). */
    pullPolicy: pullPolicySchema.optional(),
    /** The user inside the container (`uid[:gid]` or a name the image knows). */
    user: z
      .string()
      .regex(/^[a-zA-Z0-9_][a-zA-Z0-9_.-]{0,63}(:[a-zA-Z0-9_][a-zA-Z0-9_.-]{0,63})?$/, 'uid[:gid] or a name')
      .optional(),
    /** Container ports to publish, or a service's named ports (a process service's are host ports). */
    ports: z.array(portMappingSchema).max(64).optional(),
    /** Services: the check that must pass before an allocation counts as ready (none: ready once started). */
    readinessProbe: probeSchema.optional(),
    /** Services: the check whose failure makes the agent stop the allocation (reported failed; restart policy). */
    livenessProbe: probeSchema.optional(),
    volumes: z.array(volumeSchema).max(64).optional(),
    /** Most processes (and threads) the allocation may hold (default: the agent's, 1024). */
    pidsLimit: z.number().int().min(1).max(1_000_000).optional(),
    resources: resourcesSchema,
    /** Accelerator devices wanted beyond `resources.accelerators` (whole devices or one memory slice). */
    devices: deviceRequestSchema.optional(),
    constraints: constraintsSchema.default(() => ({
      labels: [],
      domains: { affinity: [], antiAffinity: [] },
      regions: { affinity: [], antiAffinity: [] },
      nodeBlacklist: [],
      preferDomains: [],
      preferRegions: [],
    })),
    replicas: z.number().int().min(1).max(1000).default(1),
    priority: z.number().int().min(-1000).max(1000).default(0),
    /**
     * Default by type (`defaultRestartPolicy`, filled in by the overwrite below, which sees the type): declared as a
     * default so the stored spec's type says it is always there.
     */
    restartPolicy: restartPolicySchema.optional() as unknown as z.ZodDefault<typeof restartPolicySchema>,
    stopGraceSeconds: z.number().min(0).max(3600).default(30),
  })
  .strict()
  .superRefine((spec, ctx) => {
    checkRuntimeFields(spec, ctx);
    const devices = spec.devices;
    if (!devices) return;
    const count = devices.sliceMemoryBytes === undefined ? devices.count : 0;
    if (spec.resources.accelerators !== count) {
      ctx.addIssue({
        code: 'custom',
        path: ['resources', 'accelerators'],
        message: `must equal the devices asked for (${count}${count === 0 ? ': a slice holds no whole device' : ''})`,
      });
    }
  })
  .overwrite((spec) => ({
    ...spec,
    restartPolicy: spec.restartPolicy ?? defaultRestartPolicy(spec.type),
    ...(isServiceType(spec.type) ? { runtime: runtimeOf(spec) } : {}),
  }));
/** The full, validated specification of a workload (see `specSchema`). */
export const workloadSpecSchema = withStoredForm(specSchema, (spec, strip) => {
  const { restartPolicy, runtime, ...rest } = strip(spec);
  const implied = isServiceType(spec.type) ? runtimeOf({ ...spec, runtime: undefined }) : undefined;
  return {
    ...rest,
    ...(isDeepStrictEqual(spec.restartPolicy, defaultRestartPolicy(spec.type)) ? {} : { restartPolicy }),
    ...(runtime === undefined || runtime === implied ? {} : { runtime }),
  };
});

type SpecShape = Parameters<typeof checkServiceFields>[0] & {
  args?: string[];
  modelPath?: string;
  modelUrl?: string;
  framework?: string;
  command?: string;
  workingDir?: string;
} & Partial<Record<(typeof CONTAINER_ONLY)[number], unknown>>;

/**
 * Per runtime: a process needs a command and a relative working dir; a container needs an image and a containerPort
 * per port (services run as either; a process service may declare its host ports); the service and model rules
 * first (a model's server comes from the agent's configuration: none of these apply to it).
 */
function checkRuntimeFields(spec: SpecShape, ctx: z.RefinementCtx): void {
  const issue = (path: string, message: string): void =>
    ctx.addIssue({ code: 'custom', path: [path], message });
  // A required field that is missing keeps the code a missing field always had (stable error codes).
  const missing = (path: (string | number)[], message: string, expected: 'string' | 'number' = 'string') =>
    ctx.addIssue({ code: 'invalid_type', expected, input: undefined, path, message });
  checkServiceFields(spec, ctx);
  checkModelFields(spec, ctx);
  if (spec.type === 'model') return; // its server's command, image and port come from the agent's configuration
  const what = spec.type === 'service' ? 'service' : 'workload';
  if (runtimeOf(spec) === 'container') {
    if (!spec.image) missing(['image'], `a container ${what} needs an image`);
    if (spec.workingDir !== undefined && !spec.workingDir.startsWith('/'))
      issue('workingDir', "a container's working directory is an absolute path");
    const seen = new Set<string>();
    (spec.ports ?? []).forEach((port, i) => {
      if (port.containerPort === undefined)
        return missing(['ports', i, 'containerPort'], 'a container port needs its containerPort', 'number');
      const key = `${port.containerPort}/${port.protocol ?? 'tcp'}`;
      if (seen.has(key)) issue('ports', `container port ${key} is published twice`);
      seen.add(key);
    });
    return;
  }
  if ((spec.type === 'process' || spec.type === 'service') && spec.command === undefined)
    missing(['command'], `a process ${what} needs a command`);
  if (spec.workingDir?.startsWith('/')) issue('workingDir', 'a relative path without ..');
  const hostPorts = new Set<string>();
  for (const port of spec.type === 'service' ? (spec.ports ?? []) : []) {
    const key = `${port.hostPort}/${port.protocol ?? 'tcp'}`;
    if (port.hostPort && hostPorts.has(key)) issue('ports', `host port ${key} is declared twice`);
    hostPorts.add(key);
  }
  for (const field of CONTAINER_ONLY)
    if (spec[field] !== undefined && !(field === 'ports' && spec.type === 'service'))
      issue(field, 'only container workloads take this field');
}

/** A workload specification as stored (defaults applied). */
export type WorkloadSpec = z.output<typeof workloadSpecSchema>;
/** A workload specification as a user writes it. */
export type WorkloadSpecInput = z.input<typeof workloadSpecSchema>;

/**
 * What a spec needs of a node beyond resources and constraints, as the scheduler's request carries it (the hub's
 * placement and the audit's replay alike): the container runtime, and a model's framework.
 */
export function placementNeedsOf(spec: {
  type: string;
  runtime?: Runtime;
  image?: string;
  framework?: string;
}): { runtime?: 'container'; modelFramework?: string } {
  return {
    ...(runtimeOf(spec) === 'container' ? { runtime: 'container' as const } : {}),
    ...(spec.type === 'model' && spec.framework ? { modelFramework: spec.framework } : {}),
  };
}
