import { z } from 'zod';
import { namespaceSchema } from './resources.schemas';
import { siteIdSchema } from './site.events';
import { workloadSpecSchema } from './workload.spec';

/** A delegation id: the parent's idempotency key for one hand-over of a workload to a child site. */
export const delegationIdSchema = z.string().uuid();

/** Where a delegated workload came from: the parent site, its workload there and the delegation. */
export const delegatedFromSchema = z
  .object({ siteId: siteIdSchema, workloadId: z.string().uuid(), delegationId: delegationIdSchema })
  .strict();

/** Where a delegated workload came from. */
export type DelegatedFrom = z.output<typeof delegatedFromSchema>;

/**
 * What a parent site asks of a child site (`POST /v1/federation/delegations` on the child, signed): run this workload
 * of `namespace` under the child's own quotas and policies. Idempotent on `delegationId`.
 */
export const delegationRequestSchema = z
  .object({
    delegationId: delegationIdSchema,
    parentSiteId: siteIdSchema,
    parentWorkloadId: z.string().uuid(),
    namespace: namespaceSchema,
    spec: workloadSpecSchema,
  })
  .strict()
  .refine((r) => r.spec.namespace === r.namespace, {
    message: 'spec.namespace must be the delegation namespace',
    path: ['spec', 'namespace'],
  });

/** A delegation request as the parent sends it. */
export type DelegationRequest = z.output<typeof delegationRequestSchema>;

/** Why a child refused a delegation it could read: over its quota, or no node of its own fits. */
export const delegationRejectionSchema = z.enum(['quota', 'unschedulable']);

/**
 * The child's answer: accepted (its own workload id, the workload's status; `created` false on a repeat), or
 * rejected with the reason, the dotted code of the refusal and, for `unschedulable`, the scheduler's reasons
 * (rejection counts by filter, as in WorkloadUnschedulable).
 */
export const delegationAnswerSchema = z.discriminatedUnion('outcome', [
  z
    .object({
      outcome: z.literal('accepted'),
      delegationId: delegationIdSchema,
      workloadId: z.string().uuid(),
      status: z.string(),
      created: z.boolean(),
    })
    .strict(),
  z
    .object({
      outcome: z.literal('rejected'),
      delegationId: delegationIdSchema,
      reason: delegationRejectionSchema,
      code: z.string(),
      detail: z.string(),
      reasons: z.record(z.string(), z.number().int()).optional(),
    })
    .strict(),
]);

/** The child's answer to a delegation request. */
export type DelegationAnswer = z.output<typeof delegationAnswerSchema>;
