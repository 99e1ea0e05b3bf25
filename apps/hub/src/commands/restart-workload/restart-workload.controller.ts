import { Body, Controller, HttpCode, Param, Post } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { RequireRole } from '../../auth/auth.guard';
import { CurrentPrincipal } from '../../auth/current-principal';
import type { Principal } from '../../auth/principal';
import { parseBody } from '../../common/parse-body';
import { reasonBodySchema } from '../node-command';
import { WorkloadCommandResult, workloadIdSchema } from '../workload-command';
import { RestartWorkloadCommand } from './restart-workload.command';
import { ApiAnswer } from '../../common/api-answer';
import { workloadCommandResultSchema } from '../../common/command-results';

/** `POST /v1/workloads/:id/restart`: replace every allocation of a workload. */
@ApiTags('workloads')
@RequireRole('operator')
@Controller('v1/workloads')
export class RestartWorkloadController {
  constructor(private readonly commands: CommandBus) {}

  @Post(':id/restart')
  @ApiAnswer(workloadCommandResultSchema)
  @HttpCode(202)
  @ApiOperation({ summary: 'Replace every allocation with a fresh one' })
  restart(
    @CurrentPrincipal() principal: Principal,
    @Param('id') id: string,
    @Body() body: unknown,
  ): Promise<WorkloadCommandResult> {
    const reason = parseBody(reasonBodySchema, body, 'WORKLOAD.RESTART').reason || 'restarted by user';
    return this.commands.execute(
      new RestartWorkloadCommand(principal, parseBody(workloadIdSchema, id, 'WORKLOAD.ID'), reason),
    );
  }
}
