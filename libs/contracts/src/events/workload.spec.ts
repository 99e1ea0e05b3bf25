import { z } from 'zod';
import { domainIdSchema, nodeIdSchema } from './node.events';
import { namespaceSchema, resourcesSchema } from './resources.schemas';
import { deviceRequestSchema } from '../devices/device-request.schema';

function compiles(pattern: string): boolean {
  try {
    new RegExp(pattern);
    return true;
  } catch {
    return false;
  }
}

/** One label constraint on the node a workload may run on. */
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
  .refine((c) => c.op !== 'regex' || compiles(c.value ?? ''), {
    message: 'not a valid regular expression',
    path: ['value'],
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
    domains: affinitySchema.default({ affinity: [], antiAffinity: [] }),
    regions: affinitySchema.default({ affinity: [], antiAffinity: [] }),
    nodeBlacklist: z.array(nodeIdSchema).max(1000).default([]),
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

/** Workload kinds; only `process` runs today, the others are reserved in the spec. */
export const WORKLOAD_TYPES = ['process', 'container', 'model-server', 'batch'] as const;

const envName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]{0,127}$/, 'environment names: letters, digits, _');
const relativePath = z
  .string()
  .max(1024)
  .refine((p) => !p.startsWith('/') && !p.split('/').includes('..'), 'a relative path without ..');

/** The full, validated specification of a workload. */
export const workloadSpecSchema = z
  .object({
    name: z.string().regex(/^[a-z0-9]([a-z0-9.-]{0,61}[a-z0-9])?$/, 'names: a-z, 0-9, dots, dashes'),
    namespace: namespaceSchema.default('default'),
    type: z.enum(WORKLOAD_TYPES).default('process'),
    command: z.string().min(1).max(4096),
    args: z.array(z.string().max(4096)).max(256).default([]),
    env: z.record(envName, z.string().max(32768)).default({}),
    workingDir: relativePath.optional(),
    resources: resourcesSchema,
    /** Accelerator devices wanted beyond `resources.accelerators` (whole devices or one memory slice). */
    devices: deviceRequestSchema.optional(),
    constraints: constraintsSchema.default({
      labels: [],
      domains: { affinity: [], antiAffinity: [] },
      regions: { affinity: [], antiAffinity: [] },
      nodeBlacklist: [],
      preferDomains: [],
      preferRegions: [],
    }),
    replicas: z.number().int().min(1).max(1000).default(1),
    priority: z.number().int().min(-1000).max(1000).default(0),
    restartPolicy: restartPolicySchema.default({ policy: 'never', maxRetries: 3, backoffSeconds: 5 }),
    stopGraceSeconds: z.number().min(0).max(3600).default(30),
  })
  .strict()
  .superRefine((spec, ctx) => {
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
  });

/** A workload specification as stored (defaults applied). */
export type WorkloadSpec = z.output<typeof workloadSpecSchema>;
/** A workload specification as a user writes it. */
export type WorkloadSpecInput = z.input<typeof workloadSpecSchema>;
