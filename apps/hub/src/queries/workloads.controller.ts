import { EVENT_STORE, EventStore } from '@hcn/eventstore';
import { Controller, Get, Inject, Param, Query, Res } from '@nestjs/common';
import type { Response } from 'express';
import { setEtag } from '../common/http-conventions';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { DataSource } from 'typeorm';
import { z } from 'zod';
import { RequireRole } from '../auth/auth.guard';
import { CurrentPrincipal } from '../auth/current-principal';
import { Principal, visibleNamespaces } from '../auth/principal';
import { loadVisibleWorkload, workloadIdSchema } from '../commands/workload-command';
import { parseBody } from '../common/parse-body';
import { LogStore } from '../logs/log-store';
import { READ_MODELS } from '../tokens';
import { ApiAnswer } from '../common/api-answer';
import { WorkloadView, liveUsage, workloadView, workloadViewSchema } from './workload-view';
import { nodeAddresses, serviceView } from './service-view';
import { ClusterView } from '../scheduling/cluster-view';
import { Federation } from '../federation/federation';
import { AllocationLines, siteLogs } from './delegation-logs/site-logs';
import { ApiQueries, sortAndPageDocs } from './list-query';
import {
  WORKLOAD_SORTS,
  listWorkloads,
  listWorkloadsQuerySchema,
  workloadPageSchema,
} from './workloads.query';

const listParams: Array<[string, string]> = [
  ['namespace', 'one namespace (within the token scope)'],
  ['status', 'a workload status (repeatable)'],
  ['name', 'part of the name'],
  ['nodeId', 'workloads with an instance allocated on this node (uuid)'],
  ['includeDeleted', 'true to include deleted workloads (default false)'],
  ...sortAndPageDocs(WORKLOAD_SORTS, 'desc'),
];

const logsQuerySchema = z
  .object({
    lines: z.coerce.number().int().min(1).max(10000).default(100),
    stream: z.enum(['stdout', 'stderr']).optional(),
    allocation: z.string().uuid().optional(),
  })
  .strict();

/** Workload queries: the list (read model), one workload (its stream) and its logs (shipped by agents). */
@ApiTags('workloads')
@RequireRole('viewer')
@Controller('v1/workloads')
export class WorkloadQueriesController {
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(READ_MODELS) private readonly db: DataSource,
    private readonly logs: LogStore,
    private readonly view: ClusterView,
    private readonly federation: Federation,
  ) {}

  @Get()
  @ApiOperation({ summary: 'List workloads of the namespaces the token may see (filters, sort, pagination)' })
  @ApiQueries(listParams, listWorkloadsQuerySchema)
  @ApiAnswer(workloadPageSchema)
  list(@CurrentPrincipal() principal: Principal, @Query() query: unknown) {
    const parsed = parseBody(listWorkloadsQuerySchema, query, 'WORKLOADS.QUERY');
    return listWorkloads(this.db, { ...parsed, namespaces: visibleNamespaces(principal) });
  }

  @Get(':id')
  @ApiOperation({
    summary:
      'One workload: state, instances, allocations and every delegation hop; a service also its ready replicas and endpoints',
  })
  @ApiAnswer(workloadViewSchema)
  async get(
    @CurrentPrincipal() principal: Principal,
    @Param('id') id: string,
    @Res({ passthrough: true }) res: Response,
  ): Promise<WorkloadView> {
    const { state, events } = await loadVisibleWorkload(
      this.store,
      principal,
      parseBody(workloadIdSchema, id, 'WORKLOAD.ID'),
    );
    setEtag(res, events[events.length - 1].revision);
    const view = workloadView(state, events, await liveUsage(this.store, state));
    const service = serviceView(state, nodeAddresses(this.view));
    return service ? { ...view, service } : view;
  }

  @Get(':id/logs')
  @ApiOperation({
    summary:
      "Last N lines of an allocation's output (default: each instance's current allocation; one delegated to another site is read there)",
  })
  @ApiQueries(
    [
      ['lines', 'last lines per allocation (1..10000, default 100)'],
      ['stream', 'stdout | stderr (default both)'],
      ['allocation', 'one allocation (uuid)'],
    ],
    logsQuerySchema,
  )
  async tail(@CurrentPrincipal() principal: Principal, @Param('id') id: string, @Query() query: unknown) {
    const { state } = await loadVisibleWorkload(
      this.store,
      principal,
      parseBody(workloadIdSchema, id, 'WORKLOAD.ID'),
    );
    const q = parseBody(logsQuerySchema, query, 'LOGS.QUERY');
    const allocationIds = q.allocation
      ? [q.allocation].filter((a) => state.allocations[a])
      : state.instances.flatMap((i) => (i.allocationId ? [i.allocationId] : []));
    const allocations: AllocationLines[] = [];
    for (const allocationId of allocationIds) {
      const siteId = state.allocations[allocationId]?.siteId; // federation: read at the site it was delegated to
      if (siteId) allocations.push(await siteLogs(this.federation, state, allocationId, siteId, q));
      else allocations.push({ allocationId, lines: await this.logs.tail(allocationId, q.lines, q.stream) });
    }
    return { workloadId: state.workloadId, allocations };
  }
}
