import { z } from 'zod';
import { defineEvent } from '../registry';
import { quotaAmountsSchema } from './quota.events';
import { namespaceSchema } from './resources.schemas';

/**
 * Admission of a workload was refused by its namespace's quota (QUOTA.EXCEEDED). An audit fact only, kept in
 * `admission-<namespace>` (not the quota stream, whose revisions the hot quota aggregate relies on); nothing
 * else changes.
 */
export const AdmissionDenied = defineEvent(
  'AdmissionDenied',
  1,
  z.object({
    namespace: namespaceSchema,
    workloadId: z.string().uuid(),
    workloadName: z.string().max(128),
    resources: quotaAmountsSchema,
    over: z.array(z.string().max(200)).max(8),
  }),
);

/** Every admission audit event definition. */
export const ADMISSION_EVENTS = [AdmissionDenied] as const;

/** Stream of a namespace's refused admissions. */
export const admissionStream = (namespace: string): string => `admission-${namespace}`;
