import { Controller, Get, Inject, Query } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { DataSource } from 'typeorm';
import { RequireRole } from '../auth/auth.guard';
import { CurrentPrincipal } from '../auth/current-principal';
import { Principal, visibleNamespaces } from '../auth/principal';
import { parseBody } from '../common/parse-body';
import { CLOCK, Clock, READ_MODELS } from '../tokens';
import { ApiAnswer } from '../common/api-answer';
import { ApiQueries, sortAndPageDocs } from './list-query';
import {
  DELEGATION_SORTS,
  listDelegations,
  listDelegationsQuerySchema,
  delegationPageSchema,
  siteDelegationTimeline,
  siteTimelineQuerySchema,
  siteTimelineSchema,
} from './delegations.query';

const filters: Array<[string, string]> = [
  ['workloadId', 'one workload (uuid)'],
  ['namespace', 'one namespace (within the token scope)'],
  ['type', 'delegated | rejected | placed | unschedulable (repeatable)'],
  ['scope', "the deciding scope: a hop's parent, a rejecting scope, a placement's domain"],
  ['target', "a hop's child domain or node id, a placement's node id"],
  ['reason', 'a rejection reason (e.g. INSUFFICIENT_CPU)'],
  ['since', 'recorded at or after (ISO 8601)'],
  ['until', 'recorded before (ISO 8601)'],
  ...sortAndPageDocs(DELEGATION_SORTS, 'desc'),
];

/** Delegation steps across workloads (the delegation_hops read model). */
@ApiTags('workloads')
@RequireRole('viewer')
@Controller('v1/delegations')
export class DelegationsController {
  constructor(
    @Inject(READ_MODELS) private readonly db: DataSource,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  @Get()
  @ApiOperation({
    summary:
      'Scheduling steps (hops, rejections, placements, unschedulable verdicts) of the visible namespaces',
  })
  @ApiQueries(filters, listDelegationsQuerySchema)
  @ApiAnswer(delegationPageSchema)
  list(@CurrentPrincipal() principal: Principal, @Query() query: unknown) {
    const parsed = parseBody(listDelegationsQuerySchema, query, 'DELEGATIONS.QUERY');
    return listDelegations(this.db, { ...parsed, namespaces: visibleNamespaces(principal) });
  }

  @Get('sites')
  @ApiOperation({
    summary:
      'Delegations between sites over time: instances handed to each site and its refusals, per bucket',
  })
  @ApiQueries(
    [
      ['since', 'window start (ISO 8601; default: an hour before until)'],
      ['until', 'window end (ISO 8601; default: now)'],
      ['bucketSeconds', 'bucket size in seconds (default 60; at most 1,000 buckets)'],
    ],
    siteTimelineQuerySchema,
  )
  @ApiAnswer(siteTimelineSchema)
  sites(@CurrentPrincipal() principal: Principal, @Query() query: unknown) {
    const parsed = parseBody(siteTimelineQuerySchema, query, 'DELEGATIONS.QUERY');
    const scope = { namespaces: visibleNamespaces(principal), now: this.clock() };
    return siteDelegationTimeline(this.db, { ...parsed, ...scope });
  }
}
