import { Body, Controller, HttpCode, Inject, Param, Post } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { RequireRole } from '../../auth/auth.guard';
import { CurrentPrincipal } from '../../auth/current-principal';
import type { Principal } from '../../auth/principal';
import { parseBody } from '../../common/parse-body';
import { CLOCK, Clock } from '../../tokens';
import { reasonBodySchema } from '../node-command';
import { TaskQueueChangeCommand, TaskQueueCommandResult, parseQueueId } from '../taskqueue-command';
import { ApiAnswer } from '../../common/api-answer';
import { taskQueueCommandResultSchema } from '../../common/command-results';

/** `POST /v1/taskqueues/:id/next`: GridCore's `next`. */
@ApiTags('taskqueues')
@RequireRole('operator')
@Controller('v1/taskqueues')
export class AdvanceTaskQueueController {
  constructor(
    private readonly commands: CommandBus,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  @Post(':id/next')
  @ApiAnswer(taskQueueCommandResultSchema)
  @HttpCode(200)
  @ApiOperation({
    summary:
      'Complete the running task (its instances stop: SIGTERM, SIGKILL after the grace) and start the next',
  })
  next(
    @CurrentPrincipal() principal: Principal,
    @Param('id') id: string,
    @Body() body: unknown,
  ): Promise<TaskQueueCommandResult> {
    const reason = parseBody(reasonBodySchema, body ?? {}, 'TASKQUEUE.NEXT').reason || 'next requested';
    const at = this.clock().toISOString();
    return this.commands.execute(
      new TaskQueueChangeCommand(principal, parseQueueId(id), { type: 'Advance', cause: 'next', reason, at }),
    );
  }
}
