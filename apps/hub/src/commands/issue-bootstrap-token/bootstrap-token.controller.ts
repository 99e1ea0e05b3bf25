import { HcnError, domainIdSchema, nodeStream } from '@hcn/contracts';
import { foldRecorded, nodeDecider } from '@hcn/domain';
import { EVENT_STORE, EventStore } from '@hcn/eventstore';
import { Body, Controller, HttpCode, Inject, Post } from '@nestjs/common';
import { ApiBody, ApiOperation, ApiTags } from '@nestjs/swagger';
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { AgentCredentials } from '../../auth/agent-credentials';
import { RequireRole } from '../../auth/auth.guard';
import { parseBody } from '../../common/parse-body';
import { CLOCK, Clock } from '../../tokens';
import { nodeIdParamSchema } from '../node-command';

/** Body of a bootstrap token request: the node (a new id when omitted), its domain if bound, the lifetime. */
export const bootstrapTokenBodySchema = z
  .object({
    nodeId: nodeIdParamSchema.optional(),
    domainId: domainIdSchema.optional(),
    ttlSeconds: z
      .number()
      .int()
      .min(60)
      .max(30 * 24 * 3600)
      .default(24 * 3600),
  })
  .strict();

/** Reply: the token to give the new node's agent as HCN_JOIN_TOKEN. */
export interface BootstrapTokenResponse {
  nodeId: string;
  domainId?: string;
  token: string;
  expiresAt: string;
}

/** Admin-issued per-node bootstrap tokens: each registers exactly one new node (stateless, spent once it exists). */
@ApiTags('nodes')
@RequireRole('admin')
@Controller('v1/nodes')
export class BootstrapTokenController {
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly credentials: AgentCredentials,
  ) {}

  @Post('bootstrap-tokens')
  @HttpCode(200) // a signed token, not a resource with a URL
  @ApiOperation({
    summary: "A token that registers one new node (the agent's HCN_JOIN_TOKEN); optionally bound to a domain",
  })
  @ApiBody({ schema: z.toJSONSchema(bootstrapTokenBodySchema, { io: 'input' }) as object, required: false })
  async issue(@Body() body: unknown): Promise<BootstrapTokenResponse> {
    const request = parseBody(bootstrapTokenBodySchema, body, 'BOOTSTRAP');
    const nodeId = request.nodeId ?? randomUUID();
    const state = foldRecorded(nodeDecider, await this.store.readStream(nodeStream(nodeId)));
    if (state.status !== 'unregistered')
      throw new HcnError('NODE.ALREADY_REGISTERED', `Node ${nodeId} is registered already`, { nodeId });
    const expiresAt = new Date(this.clock().getTime() + request.ttlSeconds * 1000);
    const claims = {
      nodeId,
      ...(request.domainId ? { domainId: request.domainId } : {}),
      expiresAt: Math.floor(expiresAt.getTime() / 1000),
    };
    return {
      nodeId,
      ...(request.domainId ? { domainId: request.domainId } : {}),
      token: this.credentials.issueBootstrap(claims),
      expiresAt: expiresAt.toISOString(),
    };
  }
}
