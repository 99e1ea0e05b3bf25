import { Body, Controller, HttpCode, Inject, Param, Post } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { RequireRole } from '../../auth/auth.guard';
import { CurrentPrincipal } from '../../auth/current-principal';
import type { Principal } from '../../auth/principal';
import { parseBody } from '../../common/parse-body';
import { CLOCK, Clock } from '../../tokens';
import { reasonBodySchema } from '../node-command';
import {
  TaskQueueChangeCommand,
  TaskQueueCommandResult,
  parseQueueId,
  parseTaskId,
} from '../taskqueue-command';
import { ApiAnswer } from '../../common/api-answer';
import { taskQueueCommandResultSchema } from '../../common/command-results';

/** `POST /v1/taskqueues/:id/tasks/:taskId/cancel`. */
@ApiTags('taskqueues')
@RequireRole('operator')
@Controller('v1/taskqueues')
export class CancelTaskController {
  constructor(
    private readonly commands: CommandBus,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  @Post(':id/tasks/:taskId/cancel')
  @ApiAnswer(taskQueueCommandResultSchema)
  @HttpCode(200)
  @ApiOperation({
    summary: 'Cancel a pending or running task (a running one stops; the queue waits for next)',
  })
  cancel(
    @CurrentPrincipal() principal: Principal,
    @Param('id') id: string,
    @Param('taskId') taskId: string,
    @Body() body: unknown,
  ): Promise<TaskQueueCommandResult> {
    const reason = parseBody(reasonBodySchema, body ?? {}, 'TASKQUEUE.CANCEL').reason || 'cancelled by user';
    const change = {
      type: 'CancelTask' as const,
      taskId: parseTaskId(taskId),
      reason,
      at: this.clock().toISOString(),
    };
    return this.commands.execute(new TaskQueueChangeCommand(principal, parseQueueId(id), change));
  }
}
