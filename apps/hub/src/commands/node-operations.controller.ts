import { RequireRole } from '../auth/auth.guard';
import { Body, Controller, HttpCode, Param, Post, Put } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiBody, ApiOperation, ApiTags } from '@nestjs/swagger';
import { z } from 'zod';
import { parseBody } from '../common/parse-body';
import { ChangeNodeLabelsCommand } from './change-node-labels/change-node-labels.command';
import { DrainNodeCommand } from './drain-node/drain-node.command';
import { NodeCommandResult, labelsBodySchema, nodeIdParamSchema, reasonBodySchema } from './node-command';
import { StopNodeCommand } from './stop-node/stop-node.command';

/** Operator commands on one node: drain, remote graceful stop, labels. */
@ApiTags('nodes')
@RequireRole('admin')
@Controller('v1/nodes/:id')
export class NodeOperationsController {
  constructor(private readonly commands: CommandBus) {}

  @Post('drain')
  @HttpCode(202)
  @ApiOperation({ summary: 'Stop placing new work on the node' })
  @ApiBody({ schema: z.toJSONSchema(reasonBodySchema, { io: 'input' }) as object, required: false })
  drain(@Param('id') id: string, @Body() body: unknown): Promise<NodeCommandResult> {
    const nodeId = parseBody(nodeIdParamSchema, id, 'NODE.ID');
    return this.commands.execute(
      new DrainNodeCommand(nodeId, parseBody(reasonBodySchema, body, 'DRAIN').reason),
    );
  }

  @Post('stop')
  @HttpCode(202)
  @ApiOperation({ summary: "Ask the node's agent to stop gracefully (relayed over its command topic)" })
  @ApiBody({ schema: z.toJSONSchema(reasonBodySchema, { io: 'input' }) as object, required: false })
  stop(@Param('id') id: string, @Body() body: unknown): Promise<NodeCommandResult> {
    const nodeId = parseBody(nodeIdParamSchema, id, 'NODE.ID');
    return this.commands.execute(
      new StopNodeCommand(nodeId, parseBody(reasonBodySchema, body, 'STOP').reason),
    );
  }

  @Put('labels')
  @ApiOperation({ summary: "Replace the node's labels" })
  @ApiBody({ schema: z.toJSONSchema(labelsBodySchema, { io: 'input' }) as object })
  labels(@Param('id') id: string, @Body() body: unknown): Promise<NodeCommandResult> {
    const nodeId = parseBody(nodeIdParamSchema, id, 'NODE.ID');
    return this.commands.execute(
      new ChangeNodeLabelsCommand(nodeId, parseBody(labelsBodySchema, body, 'LABELS').labels),
    );
  }
}
