import { RequireRole } from '../auth/auth.guard';
import { Controller, Get, Inject, Param, Query, Res } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import type { DataSource } from 'typeorm';
import { nodeIdParamSchema } from '../commands/node-command';
import { parseBody } from '../common/parse-body';
import { READ_MODELS } from '../tokens';
import { DOMAIN_SORTS, listDomains, listDomainsQuerySchema } from './domains.query';
import { ApiQueries, sortAndPageDocs, totalCountHeader } from './list-query';
import { NODE_SORTS, getNode, listNodes, listNodesQuerySchema } from './nodes.query';

const nodeParams: Array<[string, string]> = [
  ['id', 'only these nodes (uuid, repeatable)'],
  ['domain', "the node's domain"],
  ['status', 'online | offline | deregistered'],
  ['runtime', 'idle | running | error (what runs on the node; error: its most recent allocation failed)'],
  ['label', 'key=value (repeatable; every one must match)'],
  ...sortAndPageDocs(NODE_SORTS),
];

const domainParams: Array<[string, string]> = [
  ['parentId', 'children of this domain'],
  ['region', 'the region of the definition'],
  ['defined', 'true: defined domains only; false: domains known from their nodes alone'],
  ['tag', 'a resource tag every returned domain offers, key=value (repeatable)'],
  ...sortAndPageDocs(DOMAIN_SORTS, 'asc', '1..1000; default: every domain (X-Total-Count has the count)'),
];

/** Read-model queries: nodes and domains. */
@ApiTags('nodes')
@RequireRole('viewer')
@Controller('v1')
export class NodesController {
  constructor(@Inject(READ_MODELS) private readonly db: DataSource) {}

  @Get('nodes')
  @ApiOperation({ summary: 'List nodes (filters, sort, pagination)' })
  @ApiQueries(nodeParams)
  list(@Query() query: unknown) {
    return listNodes(this.db, parseBody(listNodesQuerySchema, query, 'NODES.QUERY'));
  }

  @Get('nodes/:id')
  @ApiOperation({ summary: 'One node' })
  get(@Param('id') id: string) {
    return getNode(this.db, parseBody(nodeIdParamSchema, id, 'NODE.ID'));
  }

  @Get('domains')
  @ApiOperation({
    summary:
      'Domains with node counts, capacity (total, idle, allocated, allocatable per resource) and resource tags; ' +
      'a bare array, the count of matches in X-Total-Count',
  })
  @ApiTags('domains')
  @ApiQueries(domainParams)
  async domains(@Query() query: unknown, @Res({ passthrough: true }) res: Response) {
    const page = await listDomains(this.db, parseBody(listDomainsQuerySchema, query, 'DOMAINS.QUERY'));
    return totalCountHeader(res, page);
  }
}
