import { Controller, Delete, Headers, HttpCode, Param } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { RequireRole } from '../../auth/auth.guard';
import { CurrentPrincipal } from '../../auth/current-principal';
import type { Principal } from '../../auth/principal';
import { ifMatchRevisions } from '../../common/http-conventions';
import { parseBody } from '../../common/parse-body';
import { WorkloadCommandResult, workloadIdSchema } from '../workload-command';
import { DeleteWorkloadCommand } from './delete-workload.command';
import { ApiAnswer } from '../../common/api-answer';
import { workloadCommandResultSchema } from '../../common/command-results';

/** `DELETE /v1/workloads/:id`: stop a workload and release its quota. */
@ApiTags('workloads')
@RequireRole('operator')
@Controller('v1/workloads')
export class DeleteWorkloadController {
  constructor(private readonly commands: CommandBus) {}

  @Delete(':id')
  @ApiAnswer(workloadCommandResultSchema)
  @HttpCode(202)
  @ApiOperation({ summary: 'Delete: stop every allocation and release the quota' })
  remove(
    @CurrentPrincipal() principal: Principal,
    @Param('id') id: string,
    @Headers('if-match') ifMatch: string | undefined,
  ): Promise<WorkloadCommandResult> {
    const workloadId = parseBody(workloadIdSchema, id, 'WORKLOAD.ID');
    return this.commands.execute(
      new DeleteWorkloadCommand(principal, workloadId, 'deleted by user', ifMatchRevisions(ifMatch)),
    );
  }
}
