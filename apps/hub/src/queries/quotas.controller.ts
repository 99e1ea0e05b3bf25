import { namespaceSchema, quotaStream } from '@hcn/contracts';
import { foldRecorded, quotaDecider, quotaUsed } from '@hcn/domain';
import { EVENT_STORE, EventStore } from '@hcn/eventstore';
import { Controller, Get, Inject, Param, Query, Res } from '@nestjs/common';
import type { Response } from 'express';
import { setEtag } from '../common/http-conventions';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { DataSource } from 'typeorm';
import { RequireRole } from '../auth/auth.guard';
import { CurrentPrincipal } from '../auth/current-principal';
import { Principal, requireNamespace, visibleNamespaces } from '../auth/principal';
import { parseBody } from '../common/parse-body';
import type { HubConfig } from '../config';
import { HUB_CONFIG, READ_MODELS } from '../tokens';
import { ApiAnswer } from '../common/api-answer';
import { ApiQueries, sortAndPageDocs } from './list-query';
import {
  QUOTA_SORTS,
  QuotaView,
  listQuotaUsage,
  listQuotasQuerySchema,
  quotaPageSchema,
  quotaSchema,
} from './quotas.query';

const listParams: Array<[string, string]> = [
  ['namespace', 'only these namespaces (repeatable; within the token scope)'],
  ['prefix', 'namespaces whose name starts with this'],
  ...sortAndPageDocs(QUOTA_SORTS),
];

/** `GET /v1/quotas[/:namespace]`: limits and usage (viewers of the namespace). */
@ApiTags('quotas')
@Controller('v1/quotas')
export class QuotaQueriesController {
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(READ_MODELS) private readonly db: DataSource,
    @Inject(HUB_CONFIG) private readonly config: HubConfig,
  ) {}

  @Get()
  @RequireRole('viewer')
  @ApiOperation({
    summary: 'Limits and usage of the namespaces the token may see (read model; filters, sort, pagination)',
  })
  @ApiQueries(listParams, listQuotasQuerySchema)
  @ApiAnswer(quotaPageSchema)
  list(@CurrentPrincipal() principal: Principal, @Query() query: unknown) {
    const parsed = parseBody(listQuotasQuerySchema, query, 'QUOTAS.QUERY');
    return listQuotaUsage(this.db, visibleNamespaces(principal), parsed);
  }

  @Get(':namespace')
  @RequireRole('viewer')
  @ApiOperation({
    summary:
      'Limits and current usage of a namespace (from its quota stream); without limits of its own, the ' +
      'default quota (HCN_DEFAULT_QUOTA) when configured: limitsSource namespace, default or none',
  })
  @ApiAnswer(quotaSchema)
  async get(
    @CurrentPrincipal() principal: Principal,
    @Param('namespace') ns: string,
    @Res({ passthrough: true }) res: Response,
  ): Promise<QuotaView> {
    const namespace = parseBody(namespaceSchema, ns, 'QUOTA.NAMESPACE');
    requireNamespace(principal, namespace);
    const events = await this.store.readStream(quotaStream(namespace));
    setEtag(res, events.length > 0 ? events[events.length - 1].revision : -1);
    const state = foldRecorded(quotaDecider, events);
    const limits = state.limits ?? this.config.defaultQuota;
    return {
      namespace,
      limits: limits ?? {},
      limitsSource: state.limits ? 'namespace' : limits ? 'default' : 'none',
      used: quotaUsed(state),
      holders: state.held.size,
    };
  }
}
