import { siteIdSchema } from '@hcn/contracts';
import { Controller, Get, Inject, Param, Query, Res } from '@nestjs/common';
import type { Response } from 'express';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { DataSource } from 'typeorm';
import { RequireRole } from '../auth/auth.guard';
import { setEtag } from '../common/http-conventions';
import { parseBody } from '../common/parse-body';
import { READ_MODELS } from '../tokens';
import { ApiQueries, pageDocs } from './list-query';
import { ApiAnswer } from '../common/api-answer';
import { listSites, listSitesQuerySchema, loadSite, sitePageSchema, siteViewSchema } from './sites.query';

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
  @ApiQueries(
    [
      ['status', 'invited | online | offline | deregistered'],
      ['relation', 'child | member | none'],
      ...pageDocs,
    ],
    listSitesQuerySchema,
  )
  @ApiAnswer(sitePageSchema)
  list(@Query() query: unknown) {
    return listSites(this.db, parseBody(listSitesQuerySchema, query, 'FEDERATION.QUERY'));
  }

  @Get(':id')
  @ApiOperation({
    summary: 'One site: status, relation, address, regions, last summary (ETag: its stream revision)',
  })
  @ApiAnswer(siteViewSchema)
  async get(@Param('id') id: string, @Res({ passthrough: true }) res: Response) {
    const { site, revision } = await loadSite(this.db, parseBody(siteIdSchema, id, 'FEDERATION.SITE_ID'));
    setEtag(res, revision);
    return site;
  }
}
