import { Body, Controller, HttpCode, Param, Post } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiBody, ApiOperation, ApiTags } from '@nestjs/swagger';
import { z } from 'zod';
import { RequireRole } from '../../auth/auth.guard';
import { parseBody } from '../../common/parse-body';
import { NodeCommandResult, nodeIdParamSchema, reasonBodySchema } from '../node-command';
import { StopNodeCommand } from './stop-node.command';
import { ApiAnswer } from '../../common/api-answer';
import { nodeCommandResultSchema } from '../../common/command-results';

/** `POST /v1/nodes/:id/stop`: ask a node's agent to stop gracefully. */
@ApiTags('nodes')
@RequireRole('admin')
@Controller('v1/nodes/:id')
export class StopNodeController {
  constructor(private readonly commands: CommandBus) {}

  @Post('stop')
  @ApiAnswer(nodeCommandResultSchema)
  @HttpCode(202)
  @ApiOperation({ summary: "Ask the node's agent to stop gracefully (relayed over its command topic)" })
  @ApiBody({ schema: z.toJSONSchema(reasonBodySchema, { io: 'input' }) as object, required: false })
  stop(@Param('id') id: string, @Body() body: unknown): Promise<NodeCommandResult> {
    const nodeId = parseBody(nodeIdParamSchema, id, 'NODE.ID');
    return this.commands.execute(
      new StopNodeCommand(nodeId, parseBody(reasonBodySchema, body, 'STOP').reason),
    );
  }
}
