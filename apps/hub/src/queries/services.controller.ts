import { Controller, Get, Inject, Query } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { DataSource } from 'typeorm';
import { RequireRole } from '../auth/auth.guard';
import { CurrentPrincipal } from '../auth/current-principal';
import { Principal, visibleNamespaces } from '../auth/principal';
import { parseBody } from '../common/parse-body';
import { ClusterView } from '../scheduling/cluster-view';
import { READ_MODELS } from '../tokens';
import { ApiQueries, pageDocs } from './list-query';
import { nodeAddresses } from './service-view';
import { ApiAnswer } from '../common/api-answer';
import { listServices, listServicesQuerySchema, servicePageSchema } from './services.query';

/** `GET /v1/services`: the services of the namespaces a token may see, with the endpoints of their ready replicas. */
@ApiTags('services')
@RequireRole('viewer')
@Controller('v1/services')
export class ServicesController {
  constructor(
    @Inject(READ_MODELS) private readonly db: DataSource,
    private readonly view: ClusterView,
  ) {}

  @Get()
  @ApiOperation({
    summary: 'List services with their endpoints (host:port of every ready replica, per named port)',
  })
  @ApiQueries(
    [
      ['namespace', 'one namespace (within the token scope)'],
      ['name', "a service's name (exact)"],
      ...pageDocs,
    ],
    listServicesQuerySchema,
  )
  @ApiAnswer(servicePageSchema)
  list(@CurrentPrincipal() principal: Principal, @Query() query: unknown) {
    const parsed = parseBody(listServicesQuerySchema, query, 'SERVICES.QUERY');
    return listServices(
      this.db,
      { ...parsed, namespaces: visibleNamespaces(principal) },
      nodeAddresses(this.view),
    );
  }
}
