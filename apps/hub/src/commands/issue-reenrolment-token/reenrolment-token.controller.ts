import { HcnError, nodeStream } from '@hcn/contracts';
import { foldRecorded, nodeDecider } from '@hcn/domain';
import { EVENT_STORE, EventStore } from '@hcn/eventstore';
import { Body, Controller, HttpCode, Inject, Param, Post } from '@nestjs/common';
import { ApiBody, ApiOperation, ApiTags } from '@nestjs/swagger';
import { z } from 'zod';
import { AgentCredentials } from '../../auth/agent-credentials';
import { RequireRole } from '../../auth/auth.guard';
import { parseBody } from '../../common/parse-body';
import { CLOCK, Clock } from '../../tokens';
import { nodeIdParamSchema } from '../node-command';

/** Body of a re-enrolment token request: how long the token stays valid. */
export const reenrolmentBodySchema = z
  .object({
    ttlSeconds: z
      .number()
      .int()
      .min(60)
      .max(7 * 24 * 3600)
      .default(3600),
  })
  .strict();

/** Admin-issued re-enrolment tokens: an agent that lost its credential registers its known node again with one. */
@ApiTags('nodes')
@RequireRole('admin')
@Controller('v1/nodes/:id')
export class ReenrolmentTokenController {
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly credentials: AgentCredentials,
  ) {}

  @Post('reenrolment-token')
  @HttpCode(200) // a signed token, not a resource with a URL
  @ApiOperation({
    summary:
      "A token that lets the node's agent register again without its credential (HCN_REENROLMENT_TOKEN)",
  })
  @ApiBody({ schema: z.toJSONSchema(reenrolmentBodySchema, { io: 'input' }) as object, required: false })
  async issue(
    @Param('id') id: string,
    @Body() body: unknown,
  ): Promise<{ nodeId: string; token: string; expiresAt: string }> {
    const nodeId = parseBody(nodeIdParamSchema, id, 'NODE.ID');
    const { ttlSeconds } = parseBody(reenrolmentBodySchema, body, 'REENROLMENT');
    const state = foldRecorded(nodeDecider, await this.store.readStream(nodeStream(nodeId)));
    if (state.status === 'unregistered')
      throw new HcnError('NODE.NOT_FOUND', `Node ${nodeId} is not registered`, { nodeId });
    const expiresAt = new Date(this.clock().getTime() + ttlSeconds * 1000);
    return {
      nodeId,
      token: this.credentials.issueReenrolment(nodeId, expiresAt),
      expiresAt: expiresAt.toISOString(),
    };
  }
}
