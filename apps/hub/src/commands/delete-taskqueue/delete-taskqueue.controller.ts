import { Body, Controller, Delete, Inject, Param } from '@nestjs/common';
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

/** `DELETE /v1/taskqueues/:id`: delete a queue; its running task's instances are stopped. */
@ApiTags('taskqueues')
@RequireRole('operator')
@Controller('v1/taskqueues')
export class DeleteTaskQueueController {
  constructor(
    private readonly commands: CommandBus,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  @Delete(':id')
  @ApiAnswer(taskQueueCommandResultSchema)
  @ApiOperation({ summary: 'Delete a task queue (its history stays in the log)' })
  delete(
    @CurrentPrincipal() principal: Principal,
    @Param('id') id: string,
    @Body() body: unknown,
  ): Promise<TaskQueueCommandResult> {
    const reason = parseBody(reasonBodySchema, body ?? {}, 'TASKQUEUE.DELETE').reason || 'deleted by user';
    const at = this.clock().toISOString();
    return this.commands.execute(
      new TaskQueueChangeCommand(principal, parseQueueId(id), { type: 'DeleteQueue', reason, at }),
    );
  }
}
