import { Body, Controller, Param, Put } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiBody, ApiOperation, ApiTags } from '@nestjs/swagger';
import { z } from 'zod';
import { RequireRole } from '../../auth/auth.guard';
import { parseBody } from '../../common/parse-body';
import { NodeCommandResult, labelsBodySchema, nodeIdParamSchema } from '../node-command';
import { ChangeNodeLabelsCommand } from './change-node-labels.command';
import { ApiAnswer } from '../../common/api-answer';
import { nodeCommandResultSchema } from '../../common/command-results';

/** `PUT /v1/nodes/:id/labels`: replace a node's labels. */
@ApiTags('nodes')
@RequireRole('admin')
@Controller('v1/nodes/:id')
export class ChangeNodeLabelsController {
  constructor(private readonly commands: CommandBus) {}

  @Put('labels')
  @ApiAnswer(nodeCommandResultSchema)
  @ApiOperation({ summary: "Replace the node's labels" })
  @ApiBody({ schema: z.toJSONSchema(labelsBodySchema, { io: 'input' }) as object })
  labels(@Param('id') id: string, @Body() body: unknown): Promise<NodeCommandResult> {
    const nodeId = parseBody(nodeIdParamSchema, id, 'NODE.ID');
    return this.commands.execute(
      new ChangeNodeLabelsCommand(nodeId, parseBody(labelsBodySchema, body, 'LABELS').labels),
    );
  }
}
