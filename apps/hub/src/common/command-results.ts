import { z } from '@hcn/contracts';

/** What every command answer says of its stream: the revision after it and the events it appended. */
const recorded = {
  revision: z.number().int().describe("the stream's revision after the command (the resource's next ETag)"),
  events: z.array(z.string()).describe('the types of the events appended (none when nothing changed)'),
};

/** What a workload command answers: the workload's state after it. */
export const workloadCommandResultSchema = z
  .object({
    workloadId: z.string(),
    status: z.string().describe("the workload's status after the command"),
    ...recorded,
  })
  .meta({ id: 'WorkloadCommandResult' });

/** What a workload command answers (see workloadCommandResultSchema). */
export type WorkloadCommandResult = z.output<typeof workloadCommandResultSchema>;

/** The answer for one submitted workload (and the reply of a single submission). */
export const submitWorkloadResultSchema = workloadCommandResultSchema
  .extend({
    created: z.boolean().describe('false when the idempotency key named an existing identical submission'),
  })
  .meta({ id: 'SubmitWorkloadResult' });

/** The answer for one submitted workload (see submitWorkloadResultSchema). */
export type SubmitWorkloadResult = z.output<typeof submitWorkloadResultSchema>;

/** The reply to a batch: one answer per workload, in the order given. */
export const submitWorkloadsResultSchema = z
  .object({
    namespace: z.string(),
    created: z.number().int().describe('how many workloads the batch created (the others repeated a key)'),
    workloads: z.array(submitWorkloadResultSchema),
  })
  .meta({ id: 'BatchSubmission' });

/** The reply to a batch (see submitWorkloadsResultSchema). */
export type SubmitWorkloadsResult = z.output<typeof submitWorkloadsResultSchema>;

/** What an operator command on a node answers. */
export const nodeCommandResultSchema = z
  .object({ nodeId: z.string(), ...recorded })
  .meta({ id: 'NodeCommandResult' });

/** What an operator command on a node answers (see nodeCommandResultSchema). */
export type NodeCommandResult = z.output<typeof nodeCommandResultSchema>;

/** What a task queue command answers. */
export const taskQueueCommandResultSchema = z
  .object({
    queueId: z.string(),
    status: z.string().describe("the queue's status after the command"),
    current: z.string().nullable().describe('the running task, if any'),
    ...recorded,
  })
  .meta({ id: 'TaskQueueCommandResult' });

/** What a task queue command answers (see taskQueueCommandResultSchema). */
export type TaskQueueCommandResult = z.output<typeof taskQueueCommandResultSchema>;

/** What adding a task answers: the queue after it and the new task's id. */
export const taskAddedResultSchema = taskQueueCommandResultSchema
  .extend({ taskId: z.string() })
  .meta({ id: 'TaskAddedResult' });

/** What a domain definition or update answers. */
export const domainCommandResultSchema = z
  .object({ domainId: z.string(), ...recorded })
  .meta({ id: 'DomainCommandResult' });

/** What a domain definition or update answers (see domainCommandResultSchema). */
export type DomainCommandResult = z.output<typeof domainCommandResultSchema>;

/** What setting a namespace's quota answers. */
export const quotaCommandResultSchema = z
  .object({ namespace: z.string(), ...recorded })
  .meta({ id: 'QuotaCommandResult' });

/** What a template definition, update or deletion answers. */
export const templateCommandResultSchema = z
  .object({ templateId: z.string(), ...recorded })
  .meta({ id: 'TemplateCommandResult' });

/** What a template definition, update or deletion answers (see templateCommandResultSchema). */
export type TemplateCommandResult = z.output<typeof templateCommandResultSchema>;
