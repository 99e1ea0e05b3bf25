import { TaskQueueCommand, TaskQueueEvent, TaskQueueState } from '@hcn/domain';
import { EVENT_STORE, EventStore } from '@hcn/eventstore';
import { Inject } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import type { CommandEngine } from '@hcn/commands';
import { CLOCK, Clock } from '../../tokens';
import {
  TaskQueueChangeCommand,
  TaskQueueCommandResult,
  changeTaskQueue,
  taskQueueEngine,
} from '../taskqueue-command';

/** Runs every user change of a task queue through the task queue decider on `taskqueue-<id>`. */
@CommandHandler(TaskQueueChangeCommand)
export class TaskQueueChangeHandler implements ICommandHandler<
  TaskQueueChangeCommand,
  TaskQueueCommandResult
> {
  private readonly queues: CommandEngine<TaskQueueCommand, TaskQueueEvent, TaskQueueState>;

  constructor(
    @Inject(EVENT_STORE) store: EventStore,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {
    this.queues = taskQueueEngine(store);
  }

  execute(command: TaskQueueChangeCommand): Promise<TaskQueueCommandResult> {
    return changeTaskQueue(this.queues, this.clock, command);
  }
}
