import { Controller, HttpCode, Inject, Param, Post } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { RequireRole } from '../../auth/auth.guard';
import { CurrentPrincipal } from '../../auth/current-principal';
import type { Principal } from '../../auth/principal';
import { CLOCK, Clock } from '../../tokens';
import {
  TaskQueueChangeCommand,
  TaskQueueCommandResult,
  parseQueueId,
  parseTaskId,
} from '../taskqueue-command';
import { ApiAnswer } from '../../common/api-answer';
import { taskQueueCommandResultSchema } from '../../common/command-results';

/** `POST /v1/taskqueues/:id/tasks/:taskId/retry`. */
@ApiTags('taskqueues')
@RequireRole('operator')
@Controller('v1/taskqueues')
export class RetryTaskController {
  constructor(
    private readonly commands: CommandBus,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  @Post(':id/tasks/:taskId/retry')
  @ApiAnswer(taskQueueCommandResultSchema)
  @HttpCode(200)
  @ApiOperation({
    summary: 'Retry a failed or cancelled task: pending again, started at once when nothing runs',
  })
  retry(
    @CurrentPrincipal() principal: Principal,
    @Param('id') id: string,
    @Param('taskId') taskId: string,
  ): Promise<TaskQueueCommandResult> {
    const change = {
      type: 'RetryTask' as const,
      taskId: parseTaskId(taskId),
      at: this.clock().toISOString(),
    };
    return this.commands.execute(new TaskQueueChangeCommand(principal, parseQueueId(id), change));
  }
}
