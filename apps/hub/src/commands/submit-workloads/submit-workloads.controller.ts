import { z } from '@hcn/contracts';
import { Body, Controller, Post, Res } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiBody, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { RequireRole } from '../../auth/auth.guard';
import { CurrentPrincipal } from '../../auth/current-principal';
import type { Principal } from '../../auth/principal';
import { parseBody } from '../../common/parse-body';
import { created } from '../../common/http-conventions';
import { submitBodySchema } from '../submit-workload/submit-workload.controller';
import { SubmitWorkloadsCommand } from './submit-workloads.command';
import type { SubmitWorkloadsResult } from './submit-workloads.handler';
import { ApiAnswer } from '../../common/api-answer';
import { submitWorkloadsResultSchema } from '../../common/command-results';

/** Most workloads one batch may hold. */
export const MAX_BATCH = 500;
/** Body of a batch submission: workloads of one namespace, each with an optional idempotency key. */
export const submitBatchSchema = z
  .object({ workloads: z.array(submitBodySchema).min(1).max(MAX_BATCH) })
  .strict();

/** `POST /v1/workloads/batch`: submit workloads of one namespace together. */
@ApiTags('workloads')
@RequireRole('operator')
@Controller('v1/workloads')
export class SubmitWorkloadsController {
  constructor(private readonly commands: CommandBus) {}

  @Post('batch')
  @ApiAnswer(submitWorkloadsResultSchema)
  @ApiOperation({
    summary: `Submit up to ${MAX_BATCH} workloads of one namespace: admitted as a whole (quota for all or none), placed together`,
  })
  @ApiBody({ schema: z.toJSONSchema(submitBatchSchema, { io: 'input' }) as object })
  async submitBatch(
    @CurrentPrincipal() principal: Principal,
    @Body() body: unknown,
    @Res({ passthrough: true }) response: Response,
  ): Promise<SubmitWorkloadsResult> {
    const { workloads } = parseBody(submitBatchSchema, body, 'WORKLOAD.BATCH');
    const items = workloads.map(({ idempotencyKey, ...spec }) => ({
      spec,
      idempotencyKey: idempotencyKey ?? null,
    }));
    const result: SubmitWorkloadsResult = await this.commands.execute(
      new SubmitWorkloadsCommand(principal, items),
    );
    // several workloads: Location names the namespace's list; each workloadId is in the body
    if (result.created > 0) created(response, `/v1/workloads?namespace=${workloads[0].namespace}`);
    else response.status(200);
    return result;
  }
}
