import { Body, Controller, HttpCode, Param, Post } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiBody, ApiOperation, ApiTags } from '@nestjs/swagger';
import { z } from 'zod';
import { RequireRole } from '../../auth/auth.guard';
import { parseBody } from '../../common/parse-body';
import { NodeCommandResult, nodeIdParamSchema, reasonBodySchema } from '../node-command';
import { DrainNodeCommand } from './drain-node.command';
import { ApiAnswer } from '../../common/api-answer';
import { nodeCommandResultSchema } from '../../common/command-results';

/** `POST /v1/nodes/:id/drain`: stop placing new work on a node. */
@ApiTags('nodes')
@RequireRole('admin')
@Controller('v1/nodes/:id')
export class DrainNodeController {
  constructor(private readonly commands: CommandBus) {}

  @Post('drain')
  @ApiAnswer(nodeCommandResultSchema)
  @HttpCode(202)
  @ApiOperation({ summary: 'Stop placing new work on the node' })
  @ApiBody({ schema: z.toJSONSchema(reasonBodySchema, { io: 'input' }) as object, required: false })
  drain(@Param('id') id: string, @Body() body: unknown): Promise<NodeCommandResult> {
    const nodeId = parseBody(nodeIdParamSchema, id, 'NODE.ID');
    return this.commands.execute(
      new DrainNodeCommand(nodeId, parseBody(reasonBodySchema, body, 'DRAIN').reason),
    );
  }
}
