import { z } from 'zod';
import { portNameSchema } from './service.spec';

/** Runtimes an agent can run workloads with. */
export const RUNTIMES = ['process', 'container'] as const;
/** A runtime an agent offers. */
export const runtimeSchema = z.enum(RUNTIMES);
/** A runtime an agent offers (`process`: host processes; `container`: a Docker Engine API). */
export type Runtime = z.infer<typeof runtimeSchema>;

/** An image reference (`name[:tag][@digest]`, registry and path allowed). */
export const imageSchema = z
  .string()
  .min(1)
  .max(512)
  .regex(/^[a-zA-Z0-9][a-zA-Z0-9._\-/:@]*$/, 'an image reference: name[:tag][@digest]');

/** When the agent pulls a container's image. */
export const pullPolicySchema = z.enum(['ifNotPresent', 'always', 'never']);
/** When the agent pulls a container's image. */
export type PullPolicy = z.infer<typeof pullPolicySchema>;

/**
 * A port of a workload's spec: a container port published on the node (`hostPort: 0` lets the engine pick a free
 * one, reported), or a process service's host port (no `containerPort`; 0: the agent picks a free one). Services
 * name every port; the workload spec's rules say which fields each type needs.
 */
export const portMappingSchema = z
  .object({
    name: portNameSchema.optional(),
    containerPort: z.number().int().min(1).max(65535).optional(),
    hostPort: z.number().int().min(0).max(65535).default(0),
    protocol: z.enum(['tcp', 'udp']).default('tcp'),
  })
  .strict();
/** A port of a workload's spec. */
export type PortMapping = z.output<typeof portMappingSchema>;

/** A container port published on the node, as a placement carries it (`hostPort: 0`: the engine picks). */
export const containerPortSchema = z.object({
  name: portNameSchema.optional(),
  containerPort: z.number().int().min(1).max(65535),
  hostPort: z.number().int().min(0).max(65535),
  protocol: z.enum(['tcp', 'udp']),
});

const absolutePath = z
  .string()
  .min(1)
  .max(1024)
  .refine((p) => p.startsWith('/') && !p.split('/').includes('..'), 'an absolute path without ..');

/** A named volume (letters, digits, `_.-`) or an absolute host path (only under the directories allowed). */
export const volumeSchema = z
  .object({
    source: z.union([absolutePath, z.string().regex(/^[a-zA-Z0-9][a-zA-Z0-9_.-]{0,127}$/, 'a volume name')]),
    target: absolutePath,
    readOnly: z.boolean().default(false),
  })
  .strict();
/** A volume mounted into a container. */
export type VolumeMount = z.output<typeof volumeSchema>;

/** True when a volume's source is a host path (not a named volume). */
export function isHostPath(source: string): boolean {
  return source.startsWith('/');
}

/** True when `path` is one of `allowed` or below one of them (paths compared by segment). */
export function underAllowedDirectory(path: string, allowed: readonly string[]): boolean {
  return allowed.some((dir) => {
    const base = dir.endsWith('/') ? dir.slice(0, -1) : dir;
    return path === base || path.startsWith(`${base}/`);
  });
}

/** What the agent needs to run a container, besides what every placement carries (command, args, env). */
export const containerPlacementSchema = z.object({
  /** The workload's namespace (a label on the container). */
  namespace: z.string().max(63),
  image: imageSchema,
  pullPolicy: pullPolicySchema,
  user: z.string().max(256).optional(),
  ports: z.array(containerPortSchema).max(64),
  volumes: z.array(volumeSchema).max(64),
});

/** The limits an allocation runs under: its reservation (0: none) and a pids limit (absent: the agent's). */
export const allocationLimitsSchema = z.object({
  cpuMillis: z.number().int().min(0),
  memoryBytes: z.number().int().min(0),
  pidsLimit: z.number().int().min(1).optional(),
});
/** The limits an allocation runs under. */
export type AllocationLimits = z.output<typeof allocationLimitsSchema>;
/** What the agent needs to run a container. */
export type ContainerPlacement = z.output<typeof containerPlacementSchema>;

/**
 * A port published for an allocation (reported when it started): by the engine for a container, by the agent for a
 * process service (which listens on the host port itself: `containerPort` equals `hostPort`); named for services.
 */
export const publishedPortSchema = z.object({
  name: portNameSchema.optional(),
  containerPort: z.number().int().min(1).max(65535),
  hostPort: z.number().int().min(1).max(65535),
  protocol: z.enum(['tcp', 'udp']),
});
/** A port the engine published for an allocation. */
export type PublishedPort = z.output<typeof publishedPortSchema>;

/** What an allocation used, as measured on its node (cgroup or engine): CPU time, memory now and at its peak. */
export const measuredUsageSchema = z.object({
  cpuSeconds: z.number().min(0),
  memoryBytes: z.number().int().min(0),
  memoryPeakBytes: z.number().int().min(0),
});
/** What an allocation used, as measured on its node. */
export type MeasuredUsage = z.output<typeof measuredUsageSchema>;

/** One running allocation's measured usage, as a heartbeat carries it. */
export const allocationUsageSchema = measuredUsageSchema.extend({ allocationId: z.string().uuid() });
/** One running allocation's measured usage. */
export type AllocationUsage = z.output<typeof allocationUsageSchema>;
