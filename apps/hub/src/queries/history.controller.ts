import { EVENT_STORE, EventStore } from '@hcn/eventstore';
import { Controller, Get, Inject, Query } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { DataSource } from 'typeorm';
import { RequireRole } from '../auth/auth.guard';
import { CurrentPrincipal } from '../auth/current-principal';
import { Principal, visibleNamespaces } from '../auth/principal';
import { parseBody } from '../common/parse-body';
import { CLOCK, Clock, READ_MODELS } from '../tokens';
import { ApiQueries } from './list-query';
import { historyQuerySchema, schedulingHistory, usageHistory, usageQuerySchema } from './history.query';

const window: Array<[string, string]> = [
  ['minutes', 'the window, up to now (1..1440, default 60)'],
  ['buckets', 'points in the window (10..240, default 60)'],
];

/** History for the dashboard's charts: usage from the retained heartbeats, placements and failures over time. */
@ApiTags('nodes')
@RequireRole('viewer')
@Controller('v1/history')
export class HistoryController {
  constructor(
    @Inject(READ_MODELS) private readonly db: DataSource,
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  @Get('usage')
  @ApiOperation({
    summary:
      'CPU, memory and accelerator use of one node or one domain (its first 50 nodes) per bucket, from the retained heartbeats',
  })
  @ApiQueries([['nodeId', 'one node (uuid)'], ['domainId', 'one domain'], ...window], usageQuerySchema)
  usage(@Query() query: unknown) {
    return usageHistory(
      this.db,
      this.store,
      parseBody(usageQuerySchema, query, 'HISTORY.QUERY'),
      this.clock(),
    );
  }

  @Get('scheduling')
  @ApiOperation({
    summary: 'Allocations placed and failed (or lost) per bucket in the visible namespaces',
  })
  @ApiQueries(
    [['nodeId', 'on one node (uuid)'], ['domainId', 'in one domain'], ...window],
    historyQuerySchema,
  )
  scheduling(@CurrentPrincipal() principal: Principal, @Query() query: unknown) {
    const q = parseBody(historyQuerySchema, query, 'HISTORY.QUERY');
    return schedulingHistory(this.db, q, visibleNamespaces(principal), this.clock());
  }
}
