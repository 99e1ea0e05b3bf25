import { workloadSpecSchema, z } from '@hcn/contracts';
import { Body, Controller, Headers, Param, Put } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiBody, ApiOperation, ApiTags } from '@nestjs/swagger';
import { RequireRole } from '../../auth/auth.guard';
import { CurrentPrincipal } from '../../auth/current-principal';
import type { Principal } from '../../auth/principal';
import { ifMatchRevisions } from '../../common/http-conventions';
import { parseBody } from '../../common/parse-body';
import { WorkloadCommandResult, workloadIdSchema } from '../workload-command';
import { UpdateWorkloadCommand } from './update-workload.command';
import { ApiAnswer } from '../../common/api-answer';
import { workloadCommandResultSchema } from '../../common/command-results';

/** `PUT /v1/workloads/:id`: replace a workload's spec. */
@ApiTags('workloads')
@RequireRole('operator')
@Controller('v1/workloads')
export class UpdateWorkloadController {
  constructor(private readonly commands: CommandBus) {}

  @Put(':id')
  @ApiAnswer(workloadCommandResultSchema)
  @ApiOperation({ summary: 'Replace the spec; allocations whose spec changed are replaced' })
  @ApiBody({ schema: z.toJSONSchema(workloadSpecSchema, { io: 'input' }) as object })
  update(
    @CurrentPrincipal() principal: Principal,
    @Param('id') id: string,
    @Body() body: unknown,
    @Headers('if-match') ifMatch: string | undefined,
  ): Promise<WorkloadCommandResult> {
    const spec = parseBody(workloadSpecSchema, body, 'WORKLOAD.SPEC');
    const workloadId = parseBody(workloadIdSchema, id, 'WORKLOAD.ID');
    return this.commands.execute(
      new UpdateWorkloadCommand(principal, workloadId, spec, ifMatchRevisions(ifMatch)),
    );
  }
}
