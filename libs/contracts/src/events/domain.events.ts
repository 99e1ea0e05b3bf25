import { z } from 'zod';
import { defineEvent } from '../registry';
import { domainIdSchema, labelsSchema, nodeIdSchema } from './node.events';
import { schedulingPolicySchema } from './resources.schemas';

/** A domain definition: its place in the tree, region, labels, scheduling policy and head node. */
export const domainDefinitionSchema = z
  .object({
    domainId: domainIdSchema,
    parentId: domainIdSchema.nullable().default(null),
    region: z.string().min(1).max(64).nullable().default(null),
    labels: labelsSchema.default({}),
    policy: schedulingPolicySchema.default('least-loaded'),
    headNodeId: nodeIdSchema.nullable().default(null),
  })
  .strict();

/** A domain definition. */
export type DomainDefinition = z.output<typeof domainDefinitionSchema>;

/** A domain was defined in the tree. */
export const DomainDefined = defineEvent('DomainDefined', 1, domainDefinitionSchema);
/** A domain's definition changed (parent, region, labels, policy or head node). */
export const DomainUpdated = defineEvent('DomainUpdated', 1, domainDefinitionSchema);

/** Every domain event definition. */
export const DOMAIN_EVENTS = [DomainDefined, DomainUpdated] as const;

/** Stream of a domain's definition. */
export const domainStream = (domainId: string): string => `domain-${domainId}`;
