import { z } from 'zod';
import { defineEvent } from '../registry';
import { namespaceSchema, resourcesSchema } from './resources.schemas';

/** Hard limits of a namespace; a missing limit means unlimited. */
export const quotaLimitsSchema = z
  .object({
    cpuMillis: z.number().int().min(0).optional(),
    memoryBytes: z.number().int().min(0).optional(),
    accelerators: z.number().int().min(0).optional(),
    /** Accelerator memory asked by device requests (memory per device × devices, or the slice). */
    acceleratorMemoryBytes: z.number().int().min(0).optional(),
    /** Normalized compute units asked by device requests (exchange-rate table units). */
    computeUnits: z.number().min(0).optional(),
    workloads: z.number().int().min(0).optional(),
  })
  .strict();

/** What a workload holds against its namespace's quota: its resources plus what its device request asks. */
export const quotaAmountsSchema = resourcesSchema.extend({
  acceleratorMemoryBytes: z
    .number()
    .int()
    .min(0)
    .max(2 ** 60)
    .default(0),
  computeUnits: z.number().min(0).max(1e9).default(0),
});
/** What a workload holds against its namespace's quota. */
export type QuotaAmounts = z.output<typeof quotaAmountsSchema>;

/** Hard limits of a namespace. */
export type QuotaLimits = z.output<typeof quotaLimitsSchema>;

/** The limits of a namespace were set (replacing the previous ones). */
export const QuotaSet = defineEvent(
  'QuotaSet',
  1,
  z.object({ namespace: namespaceSchema, limits: quotaLimitsSchema }),
);
/** A workload was admitted and holds its resources (per replica times replicas) against the quota. */
export const QuotaConsumed = defineEvent(
  'QuotaConsumed',
  1,
  z.object({ namespace: namespaceSchema, workloadId: z.string().uuid(), resources: quotaAmountsSchema }),
);
/** A workload gave its quota back (stopped, finished or deleted), or changed what it holds. */
export const QuotaReleased = defineEvent(
  'QuotaReleased',
  1,
  z.object({
    namespace: namespaceSchema,
    workloadId: z.string().uuid(),
    resources: quotaAmountsSchema,
    reason: z.string().max(200),
  }),
);

/** Every quota event definition. */
export const QUOTA_EVENTS = [QuotaSet, QuotaConsumed, QuotaReleased] as const;

/** Stream of a namespace's quota and usage. */
export const quotaStream = (namespace: string): string => `quota-${namespace}`;
