import { HcnError, taskQueueStream, z } from '@hcn/contracts';
import {
  TaskQueueCommand,
  TaskQueueEvent,
  TaskQueueState,
  taskQueueDecider,
  taskQueueStatus,
} from '@hcn/domain';
import type { EventStore } from '@hcn/eventstore';
import { CommandEngine } from '@hcn/commands';
import { Principal, requireNamespace } from '../auth/principal';
import { parseBody } from '../common/parse-body';
import type { Clock } from '../tokens';
import { httpCommandContext } from '../common/request-scope';
import type { TaskQueueCommandResult } from '../common/command-results';

/** A task queue or task id path parameter. */
export const taskQueueIdSchema = z.string().uuid();

/** Parses a task queue id path parameter (400 TASKQUEUE.ID). */
export function parseQueueId(id: string): string {
  return parseBody(taskQueueIdSchema, id, 'TASKQUEUE.ID');
}

/** Parses a task id path parameter (400 TASKQUEUE.TASK_ID). */
export function parseTaskId(id: string): string {
  return parseBody(taskQueueIdSchema, id, 'TASKQUEUE.TASK_ID');
}

/** What a task queue command answers (its schema: common/command-results.ts). */
export type { TaskQueueCommandResult };

/** A change to a task queue by a user: checked against the principal's namespace, then decided. */
export class TaskQueueChangeCommand {
  constructor(
    readonly principal: Principal,
    readonly queueId: string,
    readonly change: TaskQueueCommand,
  ) {}
}

/** The engine every task queue change goes through (API and saga). */
export function taskQueueEngine(
  store: EventStore,
): CommandEngine<TaskQueueCommand, TaskQueueEvent, TaskQueueState> {
  return new CommandEngine(store, taskQueueDecider);
}

/**
 * Runs a user's change on `taskqueue-<id>`: a queue of another namespace looks exactly like a missing one
 * (TASKQUEUE.NOT_FOUND), a creation needs the namespace it names.
 */
export async function changeTaskQueue(
  engine: CommandEngine<TaskQueueCommand, TaskQueueEvent, TaskQueueState>,
  clock: Clock,
  { principal, queueId, change }: TaskQueueChangeCommand,
): Promise<TaskQueueCommandResult> {
  const streamId = taskQueueStream(queueId);
  const known = await engine.load(streamId);
  const namespace =
    change.type === 'CreateQueue' ? change.definition.namespace : known.state.definition?.namespace;
  const notFound = { code: 'TASKQUEUE.NOT_FOUND', message: `Task queue ${queueId} does not exist` };
  if (namespace === undefined) throw new HcnError(notFound.code, notFound.message, { queueId });
  requireNamespace(principal, namespace, change.type === 'CreateQueue' ? undefined : notFound);
  const context = httpCommandContext({ kind: 'user', id: principal.name }, clock());
  const handled = await engine.handleOnKnown(streamId, known, change, context);
  return {
    queueId,
    status: taskQueueStatus(handled.state),
    current: handled.state.current ?? null,
    revision: handled.revision,
    events: handled.events.map((e) => e.type),
  };
}
