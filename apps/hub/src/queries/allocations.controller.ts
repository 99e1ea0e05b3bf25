import { Controller, Get, Inject, Query } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { DataSource } from 'typeorm';
import { RequireRole } from '../auth/auth.guard';
import { CurrentPrincipal } from '../auth/current-principal';
import { Principal, visibleNamespaces } from '../auth/principal';
import { parseBody } from '../common/parse-body';
import { READ_MODELS } from '../tokens';
import {
  ALLOCATION_SORTS,
  listAllocations,
  listAllocationsQuerySchema,
  allocationPageSchema,
} from './allocations.query';
import { ApiAnswer } from '../common/api-answer';
import { ApiQueries, sortAndPageDocs } from './list-query';

const filters: Array<[string, string]> = [
  ['workloadId', 'one workload (uuid)'],
  ['nodeId', 'one node (uuid)'],
  ['status', 'an allocation status (repeatable)'],
  ['namespace', 'one namespace (within the token scope)'],
  ...sortAndPageDocs(ALLOCATION_SORTS, 'desc'),
];

/** Allocations (instance attempts on nodes) across workloads (the allocation_state read model). */
@ApiTags('workloads')
@RequireRole('viewer')
@Controller('v1/allocations')
export class AllocationsController {
  constructor(@Inject(READ_MODELS) private readonly db: DataSource) {}

  @Get()
  @ApiOperation({ summary: 'Allocations of the namespaces the token may see (filters, sort, pagination)' })
  @ApiQueries(filters, listAllocationsQuerySchema)
  @ApiAnswer(allocationPageSchema)
  list(@CurrentPrincipal() principal: Principal, @Query() query: unknown) {
    const parsed = parseBody(listAllocationsQuerySchema, query, 'ALLOCATIONS.QUERY');
    return listAllocations(this.db, { ...parsed, namespaces: visibleNamespaces(principal) });
  }
}
