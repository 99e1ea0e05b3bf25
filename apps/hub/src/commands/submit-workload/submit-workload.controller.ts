import { workloadSpecSchema, z } from '@hcn/contracts';
import { Body, Controller, Headers, Post, Res } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiBody, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { RequireRole } from '../../auth/auth.guard';
import { CurrentPrincipal } from '../../auth/current-principal';
import type { Principal } from '../../auth/principal';
import { parseBody } from '../../common/parse-body';
import { created } from '../../common/http-conventions';
import { submitOne } from './submit-one';
import type { SubmitWorkloadResult } from '../submit-workloads/submit-workloads.handler';
import { ApiAnswer } from '../../common/api-answer';
import { submitWorkloadResultSchema } from '../../common/command-results';

/** Body of a submission: the spec, plus an optional idempotency key (or the Idempotency-Key header). */
export const submitBodySchema = workloadSpecSchema.extend({
  idempotencyKey: z.string().min(1).max(128).optional(),
});
const idempotencyHeader = z.string().min(1).max(128).optional();

/** `POST /v1/workloads`: submit one workload (operators within their namespaces). */
@ApiTags('workloads')
@RequireRole('operator')
@Controller('v1/workloads')
export class SubmitWorkloadController {
  constructor(private readonly commands: CommandBus) {}

  @Post()
  @ApiAnswer(submitWorkloadResultSchema)
  @ApiOperation({ summary: 'Submit a workload: quota admission, then hop-by-hop placement' })
  @ApiBody({ schema: z.toJSONSchema(submitBodySchema, { io: 'input' }) as object })
  async submit(
    @CurrentPrincipal() principal: Principal,
    @Body() body: unknown,
    @Headers('idempotency-key') header: string | undefined,
    @Res({ passthrough: true }) response: Response,
  ): Promise<SubmitWorkloadResult> {
    const { idempotencyKey, ...spec } = parseBody(submitBodySchema, body, 'WORKLOAD.SPEC');
    const fromHeader =
      header === undefined ? undefined : parseBody(idempotencyHeader, header, 'WORKLOAD.IDEMPOTENCY_KEY');
    const key = idempotencyKey ?? fromHeader ?? null;
    const result = await submitOne(this.commands, principal, spec, key);
    if (result.created) created(response, `/v1/workloads/${result.workloadId}`);
    else response.status(200);
    return result;
  }
}
