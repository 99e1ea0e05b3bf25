import { RequireRole } from '../auth/auth.guard';
import { Controller, Get, Inject, Param, Query } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { DataSource } from 'typeorm';
import { nodeIdParamSchema } from '../commands/node-command';
import { parseBody } from '../common/parse-body';
import { READ_MODELS } from '../tokens';
import { getNode, listDomains, listNodes, listNodesQuerySchema } from './nodes.query';

/** Read-model queries: nodes and domains. */
@ApiTags('nodes')
@RequireRole('viewer')
@Controller('v1')
export class NodesController {
  constructor(@Inject(READ_MODELS) private readonly db: DataSource) {}

  @Get('nodes')
  @ApiOperation({
    summary: 'List nodes (filters: id (repeatable), domain, status, label=k=v; sort, order, limit, offset)',
  })
  list(@Query() query: unknown) {
    return listNodes(this.db, parseBody(listNodesQuerySchema, query, 'QUERY'));
  }

  @Get('nodes/:id')
  @ApiOperation({ summary: 'One node' })
  get(@Param('id') id: string) {
    return getNode(this.db, parseBody(nodeIdParamSchema, id, 'NODE.ID'));
  }

  @Get('domains')
  @ApiOperation({ summary: 'Domains with online/offline counts, capacity and resource tags' })
  @ApiTags('domains')
  domains() {
    return listDomains(this.db);
  }
}
