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

/** `POST /v1/taskqueues/:id/pause` and `/resume`. */
@ApiTags('taskqueues')
@RequireRole('operator')
@Controller('v1/taskqueues')
export class PauseTaskQueueController {
  constructor(
    private readonly commands: CommandBus,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  @Post(':id/pause')
  @ApiAnswer(taskQueueCommandResultSchema)
  @HttpCode(200)
  @ApiOperation({ summary: "Pause: the running task's instances stop, nothing starts or advances" })
  pause(
    @CurrentPrincipal() principal: Principal,
    @Param('id') id: string,
    @Body() body: unknown,
  ): Promise<TaskQueueCommandResult> {
    const reason = parseBody(reasonBodySchema, body ?? {}, 'TASKQUEUE.PAUSE').reason || 'paused by user';
    return this.commands.execute(
      new TaskQueueChangeCommand(principal, parseQueueId(id), { type: 'Pause', reason }),
    );
  }

  @Post(':id/resume')
  @ApiAnswer(taskQueueCommandResultSchema)
  @HttpCode(200)
  @ApiOperation({ summary: 'Resume: the running task starts again on every eligible node' })
  resume(@CurrentPrincipal() principal: Principal, @Param('id') id: string): Promise<TaskQueueCommandResult> {
    const at = this.clock().toISOString();
    return this.commands.execute(
      new TaskQueueChangeCommand(principal, parseQueueId(id), { type: 'Resume', at }),
    );
  }
}
