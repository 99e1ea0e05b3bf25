import { RequireRole } from '../auth/auth.guard';
import { Controller, Get, Inject, Param, Query, Res } from '@nestjs/common';
import type { Response } from 'express';
import { nodeStream } from '@hcn/contracts';
import { EVENT_STORE, EventStore } from '@hcn/eventstore';
import { setEtag } from '../common/http-conventions';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { DataSource } from 'typeorm';
import { nodeIdParamSchema } from '../commands/node-command';
import { parseBody } from '../common/parse-body';
import { READ_MODELS } from '../tokens';
import { ApiAnswer } from '../common/api-answer';
import { DOMAIN_SORTS, domainPageSchema, listDomains, listDomainsQuerySchema } from './domains.query';
import { ApiQueries, sortAndPageDocs } from './list-query';
import {
  NODE_SORTS,
  getNode,
  listNodes,
  listNodesQuerySchema,
  nodePageSchema,
  nodeViewSchema,
} from './nodes.query';

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
  ...sortAndPageDocs(DOMAIN_SORTS),
];

/** Read-model queries: nodes and domains. */
@ApiTags('nodes')
@RequireRole('viewer')
@Controller('v1')
export class NodesController {
  constructor(
    @Inject(READ_MODELS) private readonly db: DataSource,
    @Inject(EVENT_STORE) private readonly store: EventStore,
  ) {}

  @Get('nodes')
  @ApiOperation({ summary: 'List nodes (filters, sort, pagination)' })
  @ApiQueries(nodeParams, listNodesQuerySchema)
  @ApiAnswer(nodePageSchema)
  list(@Query() query: unknown) {
    return listNodes(this.db, parseBody(listNodesQuerySchema, query, 'NODES.QUERY'));
  }

  @Get('nodes/:id')
  @ApiOperation({ summary: 'One node' })
  @ApiAnswer(nodeViewSchema)
  async get(@Param('id') id: string, @Res({ passthrough: true }) res: Response) {
    const node = await getNode(this.db, parseBody(nodeIdParamSchema, id, 'NODE.ID'));
    const [last] = await this.store.readStream(nodeStream(node.nodeId), {
      direction: 'backwards',
      maxCount: 1,
    });
    if (last) setEtag(res, last.revision);
    return node;
  }

  @Get('domains')
  @ApiOperation({
    summary:
      'Domains with node counts, capacity (total, idle, allocated, allocatable per resource) and resource tags',
  })
  @ApiTags('domains')
  @ApiQueries(domainParams, listDomainsQuerySchema)
  @ApiAnswer(domainPageSchema)
  domains(@Query() query: unknown) {
    return listDomains(this.db, parseBody(listDomainsQuerySchema, query, 'DOMAINS.QUERY'));
  }
}
