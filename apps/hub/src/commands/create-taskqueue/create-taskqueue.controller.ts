import { taskQueueDefinitionSchema, z } from '@hcn/contracts';
import { Body, Controller, Post, Res } from '@nestjs/common';
import type { Response } from 'express';
import { CommandBus } from '@nestjs/cqrs';
import { ApiBody, ApiOperation, ApiTags } from '@nestjs/swagger';
import { randomUUID } from 'node:crypto';
import { RequireRole } from '../../auth/auth.guard';
import { CurrentPrincipal } from '../../auth/current-principal';
import type { Principal } from '../../auth/principal';
import { parseBody } from '../../common/parse-body';
import { created } from '../../common/http-conventions';
import { TaskQueueChangeCommand, TaskQueueCommandResult } from '../taskqueue-command';
import { ApiAnswer } from '../../common/api-answer';
import { taskQueueCommandResultSchema } from '../../common/command-results';

/** `POST /v1/taskqueues`: create a task queue in a namespace. */
@ApiTags('taskqueues')
@RequireRole('operator')
@Controller('v1/taskqueues')
export class CreateTaskQueueController {
  constructor(private readonly commands: CommandBus) {}

  @Post()
  @ApiAnswer(taskQueueCommandResultSchema)
  @ApiOperation({
    summary: 'Create a batch task queue (GridCore): tasks run one after another on every node',
  })
  @ApiBody({ schema: z.toJSONSchema(taskQueueDefinitionSchema, { io: 'input' }) as object })
  async create(
    @CurrentPrincipal() principal: Principal,
    @Body() body: unknown,
    @Res({ passthrough: true }) res: Response,
  ): Promise<TaskQueueCommandResult> {
    const definition = parseBody(taskQueueDefinitionSchema, body, 'TASKQUEUE.DEFINITION');
    const queueId = randomUUID();
    const result: TaskQueueCommandResult = await this.commands.execute(
      new TaskQueueChangeCommand(principal, queueId, { type: 'CreateQueue', queueId, definition }),
    );
    created(res, `/v1/taskqueues/${queueId}`);
    return result;
  }
}
