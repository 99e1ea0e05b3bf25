import { namespaceSchema, quotaLimitsSchema, quotaStream, z } from '@hcn/contracts';
import { foldRecorded, quotaDecider, quotaUsed } from '@hcn/domain';
import { EVENT_STORE, EventStore } from '@hcn/eventstore';
import { Body, Controller, Get, Inject, Param, Put } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiBody, ApiOperation, ApiTags } from '@nestjs/swagger';
import { RequireRole } from '../auth/auth.guard';
import { CurrentPrincipal } from '../auth/current-principal';
import { Principal, requireNamespace, visibleNamespaces } from '../auth/principal';
import { listQuotaUsage } from '../queries/quotas.query';
import { READ_MODELS } from '../tokens';
import type { DataSource } from 'typeorm';
import { parseBody } from '../common/parse-body';
import { SetQuotaCommand } from './set-quota/set-quota.command';

const quotaBodySchema = z.object({ limits: quotaLimitsSchema }).strict();

/** Namespace quotas: hard limits (admin) and usage (viewers of the namespace). */
@ApiTags('quotas')
@Controller('v1/quotas')
export class QuotasController {
  constructor(
    private readonly commands: CommandBus,
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(READ_MODELS) private readonly db: DataSource,
  ) {}

  @Put(':namespace')
  @RequireRole('admin')
  @ApiOperation({
    summary: 'Set the hard limits of a namespace (cpuMillis, memoryBytes, accelerators, workloads)',
  })
  @ApiBody({ schema: z.toJSONSchema(quotaBodySchema, { io: 'input' }) as object })
  set(@CurrentPrincipal() principal: Principal, @Param('namespace') ns: string, @Body() body: unknown) {
    const namespace = parseBody(namespaceSchema, ns, 'QUOTA.NAMESPACE');
    const { limits } = parseBody(quotaBodySchema, body, 'QUOTA.LIMITS');
    return this.commands.execute(new SetQuotaCommand(namespace, limits, principal.name));
  }

  @Get()
  @RequireRole('viewer')
  @ApiOperation({ summary: 'Limits and usage of every namespace the token may see (read model)' })
  list(@CurrentPrincipal() principal: Principal) {
    return listQuotaUsage(this.db, visibleNamespaces(principal));
  }

  @Get(':namespace')
  @RequireRole('viewer')
  @ApiOperation({ summary: 'Limits and current usage of a namespace (from its quota stream)' })
  async get(@CurrentPrincipal() principal: Principal, @Param('namespace') ns: string) {
    const namespace = parseBody(namespaceSchema, ns, 'QUOTA.NAMESPACE');
    requireNamespace(principal, namespace);
    const events = await this.store.readStream(quotaStream(namespace));
    const state = foldRecorded(quotaDecider, events);
    return {
      namespace,
      limits: state.limits ?? {},
      used: quotaUsed(state),
      holders: Object.keys(state.held).length,
    };
  }
}
