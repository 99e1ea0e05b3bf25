import { workloadSpecSchema, z } from '@hcn/contracts';
import { instantiateTemplate } from '@hcn/domain';
import { EVENT_STORE, EventStore } from '@hcn/eventstore';
import { Body, Controller, Inject, Param, Post, Res } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiBody, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { RequireRole } from '../../auth/auth.guard';
import { CurrentPrincipal } from '../../auth/current-principal';
import type { Principal } from '../../auth/principal';
import { parseBody } from '../../common/parse-body';
import { created } from '../../common/http-conventions';
import { submitOne } from '../submit-workload/submit-one';
import type { SubmitWorkloadResult } from '../submit-workloads/submit-workloads.handler';
import { loadTemplate } from '../template-command';
import { ApiAnswer } from '../../common/api-answer';
import { submitWorkloadResultSchema } from '../../common/command-results';

const instantiateBodySchema = z
  .object({
    parameters: z.record(z.string(), z.string().max(4096)).default({}),
    idempotencyKey: z.string().min(1).max(128).optional(),
  })
  .strict();

/** `POST /v1/templates/:id/instantiate`: submit a workload from a template and parameter values. */
@ApiTags('templates')
@RequireRole('operator')
@Controller('v1/templates')
export class InstantiateTemplateController {
  constructor(
    private readonly commands: CommandBus,
    @Inject(EVENT_STORE) private readonly store: EventStore,
  ) {}

  @Post(':id/instantiate')
  @ApiAnswer(submitWorkloadResultSchema)
  @ApiOperation({ summary: 'Submit a workload from a template and parameter values' })
  @ApiBody({ schema: z.toJSONSchema(instantiateBodySchema, { io: 'input' }) as object })
  async instantiate(
    @CurrentPrincipal() principal: Principal,
    @Param('id') id: string,
    @Body() body: unknown,
    @Res({ passthrough: true }) response: Response,
  ): Promise<SubmitWorkloadResult> {
    const template = await loadTemplate(this.store, principal, id);
    const { parameters, idempotencyKey } = parseBody(instantiateBodySchema, body, 'TEMPLATE.INSTANTIATE');
    const filled = { namespace: template.namespace, ...instantiateTemplate(template, parameters) };
    const spec = parseBody(workloadSpecSchema, filled, 'TEMPLATE.SPEC');
    const result = await submitOne(this.commands, principal, spec, idempotencyKey ?? null);
    if (result.created) created(response, `/v1/workloads/${result.workloadId}`);
    else response.status(200);
    return result;
  }
}
