import { z } from 'zod';

/** Namespaces (tenants) of workloads and quotas: a DNS label. */
export const namespaceSchema = z
  .string()
  .regex(/^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/, 'namespaces: a-z, 0-9, dashes, at most 63 characters');

/** Amounts of schedulable resources. */
export const resourcesSchema = z
  .object({
    cpuMillis: z.number().int().min(0).max(4_096_000),
    memoryBytes: z
      .number()
      .int()
      .min(0)
      .max(2 ** 50),
    accelerators: z.number().int().min(0).max(1024).default(0),
  })
  .strict();

/** Amounts of schedulable resources (CPU in millicores, memory in bytes, accelerator devices). */
export type ResourceAmounts = z.output<typeof resourcesSchema>;

/** The scheduling policies a domain may name. */
export const SCHEDULING_POLICIES = [
  'random',
  'least-loaded',
  'bin-pack',
  'spread',
  'round-robin',
  'locality',
] as const;

/** A scheduling policy name. */
export const schedulingPolicySchema = z.enum(SCHEDULING_POLICIES);
