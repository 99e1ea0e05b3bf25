import { taskQueueDefinitionSchema, z } from '@hcn/contracts';
import { Body, Controller, Post } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiBody, ApiOperation, ApiTags } from '@nestjs/swagger';
import { randomUUID } from 'node:crypto';
import { RequireRole } from '../../auth/auth.guard';
import { CurrentPrincipal } from '../../auth/current-principal';
import type { Principal } from '../../auth/principal';
import { parseBody } from '../../common/parse-body';
import { TaskQueueChangeCommand, TaskQueueCommandResult } from '../taskqueue-command';

/** `POST /v1/taskqueues`: create a task queue in a namespace. */
@ApiTags('taskqueues')
@RequireRole('operator')
@Controller('v1/taskqueues')
export class CreateTaskQueueController {
  constructor(private readonly commands: CommandBus) {}

  @Post()
  @ApiOperation({
    summary: 'Create a batch task queue (GridCore): tasks run one after another on every node',
  })
  @ApiBody({ schema: z.toJSONSchema(taskQueueDefinitionSchema, { io: 'input' }) as object })
  create(@CurrentPrincipal() principal: Principal, @Body() body: unknown): Promise<TaskQueueCommandResult> {
    const definition = parseBody(taskQueueDefinitionSchema, body, 'TASKQUEUE.DEFINITION');
    const queueId = randomUUID();
    return this.commands.execute(
      new TaskQueueChangeCommand(principal, queueId, { type: 'CreateQueue', queueId, definition }),
    );
  }
}
