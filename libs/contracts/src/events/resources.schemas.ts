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

/**
 * A scheduling policy name as recorded: its shape only. Which names exist is the scheduler's plugin registry's
 * business (`isPolicyName` in @hcn/scheduling, checked where a domain is defined), so adding a scorer touches one
 * place and a recorded name never stops an old event from reading.
 */
export const schedulingPolicySchema = z
  .string()
  .regex(/^[a-z][a-z0-9-]{0,31}$/, 'policy names: a-z, 0-9 and dashes, at most 32 characters');
