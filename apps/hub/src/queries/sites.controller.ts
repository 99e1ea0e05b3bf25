import { siteIdSchema } from '@hcn/contracts';
import { Controller, Get, Inject, Param, Query } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { DataSource } from 'typeorm';
import { RequireRole } from '../auth/auth.guard';
import { parseBody } from '../common/parse-body';
import { READ_MODELS } from '../tokens';
import { ApiQueries } from './list-query';
import { listSites, listSitesQuerySchema, loadSite } from './sites.query';

/** `GET /v1/federation/sites[/:id]`: the federation sites this site knows (site_state read model). */
@ApiTags('federation')
@RequireRole('viewer')
@Controller('v1/federation/sites')
export class SitesController {
  constructor(@Inject(READ_MODELS) private readonly db: DataSource) {}

  @Get()
  @ApiOperation({
    summary: 'The sites this site knows: children, gossip members, invited sites; with summaries',
  })
  @ApiQueries([
    ['status', 'invited | online | offline | deregistered'],
    ['relation', 'child | member | none'],
  ])
  list(@Query() query: unknown) {
    return listSites(this.db, parseBody(listSitesQuerySchema, query, 'FEDERATION.QUERY'));
  }

  @Get(':id')
  @ApiOperation({ summary: 'One site: status, relation, address, regions, last summary' })
  get(@Param('id') id: string) {
    return loadSite(this.db, parseBody(siteIdSchema, id, 'FEDERATION.SITE_ID'));
  }
}
