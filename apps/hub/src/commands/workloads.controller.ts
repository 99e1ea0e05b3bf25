import { workloadSpecSchema, z } from '@hcn/contracts';
import { Body, Controller, Delete, Headers, HttpCode, Param, Post, Put, Res } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiBody, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { RequireRole } from '../auth/auth.guard';
import { CurrentPrincipal } from '../auth/current-principal';
import type { Principal } from '../auth/principal';
import { parseBody } from '../common/parse-body';
import { reasonBodySchema } from './node-command';
import { DeleteWorkloadCommand } from './delete-workload/delete-workload.command';
import { RestartWorkloadCommand } from './restart-workload/restart-workload.command';
import { StopWorkloadCommand } from './stop-workload/stop-workload.command';
import { SubmitWorkloadCommand } from './submit-workload/submit-workload.command';
import type { SubmitWorkloadResult } from './submit-workload/submit-workload.handler';
import { SubmitWorkloadsCommand } from './submit-workloads/submit-workloads.command';
import type { SubmitWorkloadsResult } from './submit-workloads/submit-workloads.handler';
import { UpdateWorkloadCommand } from './update-workload/update-workload.command';
import type { WorkloadCommandResult } from './workload-command';

/** Body of a submission: the spec, plus an optional idempotency key (or the Idempotency-Key header). */
export const submitBodySchema = workloadSpecSchema.extend({
  idempotencyKey: z.string().min(1).max(128).optional(),
});
/** A workload id path parameter. */
export const workloadIdSchema = z.string().uuid();
/** Most workloads one batch may hold. */
export const MAX_BATCH = 500;
/** Body of a batch submission: workloads of one namespace, each with an optional idempotency key. */
export const submitBatchSchema = z
  .object({ workloads: z.array(submitBodySchema).min(1).max(MAX_BATCH) })
  .strict();
const idempotencyHeader = z.string().min(1).max(128).optional();

/** Workload commands: submit, stop, restart, update, delete (operators within their namespaces). */
@ApiTags('workloads')
@RequireRole('operator')
@Controller('v1/workloads')
export class WorkloadsController {
  constructor(private readonly commands: CommandBus) {}

  @Post()
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
    const result: SubmitWorkloadResult = await this.commands.execute(
      new SubmitWorkloadCommand(principal, spec, key),
    );
    response.status(result.created ? 201 : 200);
    return result;
  }

  @Post('batch')
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
    response.status(result.created > 0 ? 201 : 200);
    return result;
  }

  @Post(':id/stop')
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

  @Post(':id/restart')
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

  @Put(':id')
  @ApiOperation({ summary: 'Replace the spec; allocations whose spec changed are replaced' })
  @ApiBody({ schema: z.toJSONSchema(workloadSpecSchema, { io: 'input' }) as object })
  update(
    @CurrentPrincipal() principal: Principal,
    @Param('id') id: string,
    @Body() body: unknown,
  ): Promise<WorkloadCommandResult> {
    const spec = parseBody(workloadSpecSchema, body, 'WORKLOAD.SPEC');
    return this.commands.execute(
      new UpdateWorkloadCommand(principal, parseBody(workloadIdSchema, id, 'WORKLOAD.ID'), spec),
    );
  }

  @Delete(':id')
  @HttpCode(202)
  @ApiOperation({ summary: 'Delete: stop every allocation and release the quota' })
  remove(@CurrentPrincipal() principal: Principal, @Param('id') id: string): Promise<WorkloadCommandResult> {
    return this.commands.execute(
      new DeleteWorkloadCommand(principal, parseBody(workloadIdSchema, id, 'WORKLOAD.ID'), 'deleted by user'),
    );
  }
}
