import { z } from '@hcn/contracts';
import { Body, Controller, HttpCode, Param, Post } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { RequireRole } from '../../auth/auth.guard';
import { CurrentPrincipal } from '../../auth/current-principal';
import type { Principal } from '../../auth/principal';
import { ApiAnswer } from '../../common/api-answer';
import { workloadCommandResultSchema } from '../../common/command-results';
import { parseBody } from '../../common/parse-body';
import { reasonBodySchema } from '../node-command';
import { WorkloadCommandResult, workloadIdSchema } from '../workload-command';
import { GiveUpAllocationCommand } from './give-up-allocation.command';

/** An allocation id path parameter. */
const allocationIdSchema = z.string().uuid();

/**
 * `POST /v1/workloads/:id/allocations/:allocationId/give-up`: an operator gives up an allocation left `unknown` by its
 * site's partition (WORKLOAD.ALLOCATION_NOT_UNKNOWN otherwise).
 */
@ApiTags('workloads')
@RequireRole('operator')
@Controller('v1/workloads')
export class GiveUpAllocationController {
  constructor(private readonly commands: CommandBus) {}

  @Post(':id/allocations/:allocationId/give-up')
  @ApiAnswer(workloadCommandResultSchema)
  @HttpCode(202)
  @ApiOperation({
    summary:
      'Give up an allocation whose site went offline (unknown): lost, rescheduled by the restart policy, cancelled at the site',
  })
  giveUp(
    @CurrentPrincipal() principal: Principal,
    @Param('id') id: string,
    @Param('allocationId') allocationId: string,
    @Body() body: unknown,
  ): Promise<WorkloadCommandResult> {
    const reason = parseBody(reasonBodySchema, body, 'WORKLOAD.GIVE_UP').reason || 'given up by an operator';
    const workloadId = parseBody(workloadIdSchema, id, 'WORKLOAD.ID');
    const allocation = parseBody(allocationIdSchema, allocationId, 'WORKLOAD.ALLOCATION_ID');
    return this.commands.execute(new GiveUpAllocationCommand(principal, workloadId, allocation, reason));
  }
}
