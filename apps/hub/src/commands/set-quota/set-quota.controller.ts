import { namespaceSchema, quotaLimitsSchema, z } from '@hcn/contracts';
import { Body, Controller, Headers, Param, Put } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiBody, ApiOperation, ApiTags } from '@nestjs/swagger';
import { RequireRole } from '../../auth/auth.guard';
import { CurrentPrincipal } from '../../auth/current-principal';
import type { Principal } from '../../auth/principal';
import { ifMatchRevisions } from '../../common/http-conventions';
import { parseBody } from '../../common/parse-body';
import { SetQuotaCommand } from './set-quota.command';
import { ApiAnswer } from '../../common/api-answer';
import { quotaCommandResultSchema } from '../../common/command-results';

const quotaBodySchema = z.object({ limits: quotaLimitsSchema }).strict();

/** `PUT /v1/quotas/:namespace`: set a namespace's hard limits (admin). */
@ApiTags('quotas')
@Controller('v1/quotas')
export class SetQuotaController {
  constructor(private readonly commands: CommandBus) {}

  @Put(':namespace')
  @ApiAnswer(quotaCommandResultSchema)
  @RequireRole('admin')
  @ApiOperation({
    summary: 'Set the hard limits of a namespace (cpuMillis, memoryBytes, accelerators, workloads)',
  })
  @ApiBody({ schema: z.toJSONSchema(quotaBodySchema, { io: 'input' }) as object })
  set(
    @CurrentPrincipal() principal: Principal,
    @Param('namespace') ns: string,
    @Body() body: unknown,
    @Headers('if-match') ifMatch: string | undefined,
  ) {
    const namespace = parseBody(namespaceSchema, ns, 'QUOTA.NAMESPACE');
    const { limits } = parseBody(quotaBodySchema, body, 'QUOTA.LIMITS');
    const ifRevision = ifMatchRevisions(ifMatch);
    return this.commands.execute(new SetQuotaCommand(namespace, limits, principal.name, ifRevision));
  }
}
