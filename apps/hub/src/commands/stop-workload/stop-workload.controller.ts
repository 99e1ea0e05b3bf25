import { Body, Controller, HttpCode, Param, Post } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { RequireRole } from '../../auth/auth.guard';
import { CurrentPrincipal } from '../../auth/current-principal';
import type { Principal } from '../../auth/principal';
import { parseBody } from '../../common/parse-body';
import { reasonBodySchema } from '../node-command';
import { WorkloadCommandResult, workloadIdSchema } from '../workload-command';
import { StopWorkloadCommand } from './stop-workload.command';
import { ApiAnswer } from '../../common/api-answer';
import { workloadCommandResultSchema } from '../../common/command-results';

/** `POST /v1/workloads/:id/stop`: stop every allocation of a workload. */
@ApiTags('workloads')
@RequireRole('operator')
@Controller('v1/workloads')
export class StopWorkloadController {
  constructor(private readonly commands: CommandBus) {}

  @Post(':id/stop')
  @ApiAnswer(workloadCommandResultSchema)
  @HttpCode(202)
  @ApiOperation({ summary: 'Stop every allocation (SIGTERM, SIGKILL after the grace period)' })
  stop(
    @CurrentPrincipal() principal: Principal,
    @Param('id') id: string,
    @Body() body: unknown,
  ): Promise<WorkloadCommandResult> {
    const reason = parseBody(reasonBodySchema, body, 'WORKLOAD.STOP').reason || 'stopped by user';
    return this.commands.execute(
      new StopWorkloadCommand(principal, parseBody(workloadIdSchema, id, 'WORKLOAD.ID'), reason),
    );
  }
}
