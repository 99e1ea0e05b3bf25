import { Body, Controller, Delete, Param } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiBody, ApiOperation, ApiTags } from '@nestjs/swagger';
import { z } from 'zod';
import { RequireRole } from '../../auth/auth.guard';
import { parseBody } from '../../common/parse-body';
import { NodeCommandResult, nodeIdParamSchema, reasonBodySchema } from '../node-command';
import { DeregisterNodeCommand } from './deregister-node.command';
import { ApiAnswer } from '../../common/api-answer';
import { nodeCommandResultSchema } from '../../common/command-results';

/** `DELETE /v1/nodes/:id`: deregister a node (admin); its history stays in the log. */
@ApiTags('nodes')
@RequireRole('admin')
@Controller('v1/nodes')
export class DeregisterNodeController {
  constructor(private readonly commands: CommandBus) {}

  @Delete(':id')
  @ApiAnswer(nodeCommandResultSchema)
  @ApiOperation({
    summary:
      'Deregister the node: it leaves scheduling and the fleet, its active allocations are lost (restart policy decides); its history stays',
  })
  @ApiBody({ schema: z.toJSONSchema(reasonBodySchema, { io: 'input' }) as object, required: false })
  deregister(@Param('id') id: string, @Body() body: unknown): Promise<NodeCommandResult> {
    const nodeId = parseBody(nodeIdParamSchema, id, 'NODE.ID');
    const { reason } = parseBody(reasonBodySchema, body, 'DEREGISTER');
    return this.commands.execute(new DeregisterNodeCommand(nodeId, reason || 'deregistered by an admin'));
  }
}
