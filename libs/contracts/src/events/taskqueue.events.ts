import { z } from 'zod';
import { defineEvent } from '../registry';
import { nodeIdSchema } from './node.events';
import { namespaceSchema } from './resources.schemas';
import { constraintsSchema, restartPolicySchema } from './workload.spec';
import { imageSchema, pullPolicySchema, volumeSchema } from './container.spec';
import { redisUrlProblem } from '../util/redis-url';
import { isSealed } from '../util/sealing';

const id = z.string().uuid();
const at = z.string().datetime({ offset: true });
const envName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]{0,127}$/, 'environment names: letters, digits, _');
const slug = z.string().regex(/^[a-z0-9]([a-z0-9.-]{0,61}[a-z0-9])?$/, 'names: a-z, 0-9, dots, dashes');

/** A Redis URL (`redis://[:password@]host[:port][/db]`), or one with a password as the hub sealed it. */
export const redisUrlSchema = z
  .string()
  .max(4096)
  .superRefine((url, ctx) => {
    if (isSealed(url)) return; // a URL with a password, sealed by the hub (opened where it is used)
    const problem = redisUrlProblem(url);
    if (problem)
      ctx.addIssue({
        code: 'custom',
        message: `not a usable Redis URL: ${problem}`,
        params: { code: 'TASKQUEUE.BAD_REDIS_URL' },
      });
  });

const queueName = z.string().min(1).max(256);

/**
 * One batch task of a queue (GridCore's task): what each instance runs (an image, or a command as a process),
 * how many instances each eligible node gets (`instancesPerNode`, or `floor(cores × instancesPerCpu)`, default 1 per
 * core; each instance holds one CPU), where it may run, the Redis queues it reads and writes, how it is stopped and
 * when the queue moves on by itself.
 */
export const taskSpecSchema = z
  .object({
    /** TASK_NAME; unique within its queue. */
    name: slug,
    image: imageSchema.optional(),
    pullPolicy: pullPolicySchema.optional(),
    command: z.string().min(1).max(4096).optional(),
    args: z.array(z.string().max(4096)).max(256).default([]),
    env: z
      .record(envName, z.string().max(32768))
      .refine((env) => Object.keys(env).length <= 200, { message: 'at most 200 environment entries' })
      .default({}),
    workingDir: z.string().min(1).max(1024).optional(),
    volumes: z.array(volumeSchema).max(64).optional(),
    /** Memory each instance reserves (bytes). */
    memoryBytes: z
      .number()
      .int()
      .min(0)
      .max(2 ** 50)
      .default(256 * 1024 * 1024),
    instancesPerCpu: z.number().positive().max(64).optional(),
    instancesPerNode: z.number().int().min(1).max(1000).optional(),
    constraints: constraintsSchema.optional(),
    inputRedis: redisUrlSchema.optional(),
    outputRedis: redisUrlSchema.optional(),
    inputQueue: queueName.optional(),
    outputQueue: queueName.optional(),
    stopGraceSeconds: z.number().min(0).max(3600).default(30),
    restartPolicy: restartPolicySchema.default({ policy: 'never', maxRetries: 3, backoffSeconds: 5 }),
    /** Move on by itself once the input queue is empty and every instance exited 0. */
    autoAdvance: z.boolean().default(false),
    /** Move on by itself this long after the task started. */
    deadlineSeconds: z
      .number()
      .int()
      .min(1)
      .max(30 * 24 * 3600)
      .optional(),
  })
  .strict()
  .superRefine((task, ctx) => {
    if (task.instancesPerCpu !== undefined && task.instancesPerNode !== undefined)
      ctx.addIssue({
        code: 'custom',
        path: ['instancesPerNode'],
        message: 'give instancesPerCpu or instancesPerNode',
      });
    if (!task.image && !task.command)
      ctx.addIssue({
        code: 'invalid_type',
        expected: 'string',
        input: undefined,
        path: ['image'],
        message: 'a task needs an image (container) or a command (process)',
      });
    if (!task.image && (task.volumes || task.pullPolicy))
      ctx.addIssue({ code: 'custom', path: ['volumes'], message: 'volumes and pullPolicy need an image' });
  });

/** A task as stored (defaults applied). */
export type TaskSpec = z.output<typeof taskSpecSchema>;
/** A task as a user writes it. */
export type TaskSpecInput = z.input<typeof taskSpecSchema>;

/** A task queue as created. */
export const taskQueueDefinitionSchema = z
  .object({
    name: slug,
    namespace: namespaceSchema.default('default'),
    description: z.string().max(2000).default(''),
  })
  .strict();

/** A task queue as created (defaults applied). */
export type TaskQueueDefinition = z.output<typeof taskQueueDefinitionSchema>;

/** What set a task going or moved the queue on. */
export const taskStartCauseSchema = z.enum(['next', 'auto', 'deadline', 'retry', 'resume']);

/** One node's instances of a task: the workload that runs them there. */
export const taskLaunchSchema = z.object({
  nodeId: nodeIdSchema,
  workloadId: id,
  instances: z.number().int().min(1).max(1000),
  /** 1 for the node's first workload of the round; higher after the node lost its instances and came back. */
  launch: z.number().int().min(1),
});

/** One node's instances of a task. */
export type TaskLaunch = z.output<typeof taskLaunchSchema>;

const queueRef = { queueId: id };
const taskRef = { queueId: id, taskId: id };

/** A task queue was created. */
export const TaskQueueCreated = defineEvent(
  'TaskQueueCreated',
  1,
  z.object({ ...queueRef, definition: taskQueueDefinitionSchema }),
);
/** A task queue was deleted (its running task's instances are stopped). */
export const TaskQueueDeleted = defineEvent(
  'TaskQueueDeleted',
  1,
  z.object({ ...queueRef, reason: z.string().max(500), at }),
);
/** A task joined the end of the queue, pending. */
export const TaskAdded = defineEvent('TaskAdded', 1, z.object({ ...taskRef, spec: taskSpecSchema }));
/** A task became the running one; `round` counts its starts (retry and resume start a new round). */
export const TaskStarted = defineEvent(
  'TaskStarted',
  1,
  z.object({ ...taskRef, round: z.number().int().min(1), cause: taskStartCauseSchema, at }),
);
/** Nodes got their instances of the running task (one workload per node, pinned to it). */
export const TaskInstancesLaunched = defineEvent(
  'TaskInstancesLaunched',
  1,
  z.object({
    ...taskRef,
    round: z.number().int().min(1),
    launches: z.array(taskLaunchSchema).min(1).max(1000),
  }),
);
/** The task ended well: the queue moved on from it (by hand, by itself, at its deadline). */
export const TaskCompleted = defineEvent(
  'TaskCompleted',
  1,
  z.object({ ...taskRef, cause: taskStartCauseSchema, reason: z.string().max(500), at }),
);
/** Every instance of the running task ended and some failed. */
export const TaskFailed = defineEvent(
  'TaskFailed',
  1,
  z.object({ ...taskRef, reason: z.string().max(500), at }),
);
/** A pending or running task was cancelled. */
export const TaskCancelled = defineEvent(
  'TaskCancelled',
  1,
  z.object({ ...taskRef, reason: z.string().max(500), at }),
);
/** A failed or cancelled task is pending again. */
export const TaskRetried = defineEvent('TaskRetried', 1, z.object({ ...taskRef }));
/** The queue was paused: the running task's instances stop, nothing starts. */
export const TaskQueuePaused = defineEvent(
  'TaskQueuePaused',
  1,
  z.object({ ...queueRef, reason: z.string().max(500) }),
);
/** The queue was resumed; its running task (if any) starts round `round` on every eligible node. */
export const TaskQueueResumed = defineEvent(
  'TaskQueueResumed',
  1,
  z.object({ ...queueRef, round: z.number().int().min(1).optional() }),
);

/** Every task queue event definition. */
export const TASKQUEUE_EVENTS = [
  TaskQueueCreated,
  TaskQueueDeleted,
  TaskAdded,
  TaskStarted,
  TaskInstancesLaunched,
  TaskCompleted,
  TaskFailed,
  TaskCancelled,
  TaskRetried,
  TaskQueuePaused,
  TaskQueueResumed,
] as const;

/** Stream of a task queue. */
export const taskQueueStream = (queueId: string): string => `taskqueue-${queueId}`;
