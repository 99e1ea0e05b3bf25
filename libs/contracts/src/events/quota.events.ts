import { z } from 'zod';
import { defineEvent } from '../registry';
import { namespaceSchema, resourcesSchema } from './resources.schemas';

/** Hard limits of a namespace; a missing limit means unlimited. */
export const quotaLimitsSchema = z
  .object({
    cpuMillis: z.number().int().min(0).optional(),
    memoryBytes: z.number().int().min(0).optional(),
    accelerators: z.number().int().min(0).optional(),
    workloads: z.number().int().min(0).optional(),
  })
  .strict();

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
  z.object({ namespace: namespaceSchema, workloadId: z.string().uuid(), resources: resourcesSchema }),
);
/** A workload gave its quota back (stopped, finished or deleted), or changed what it holds. */
export const QuotaReleased = defineEvent(
  'QuotaReleased',
  1,
  z.object({
    namespace: namespaceSchema,
    workloadId: z.string().uuid(),
    resources: resourcesSchema,
    reason: z.string().max(200),
  }),
);

/** Every quota event definition. */
export const QUOTA_EVENTS = [QuotaSet, QuotaConsumed, QuotaReleased] as const;

/** Stream of a namespace's quota and usage. */
export const quotaStream = (namespace: string): string => `quota-${namespace}`;
