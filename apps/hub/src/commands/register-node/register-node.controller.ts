import { Public } from '../../auth/auth.guard';
import { HcnError, RegisterNodeResponse, nodeStream, registerNodeRequestSchema } from '@hcn/contracts';
import { nodeDecider, foldRecorded } from '@hcn/domain';
import { EVENT_STORE, EventStore } from '@hcn/eventstore';
import { Body, Controller, Get, Headers, HttpCode, Inject, Post } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiBody, ApiOperation, ApiTags } from '@nestjs/swagger';
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { AgentCredentials, bearer, joinTokenMatches } from '../../auth/agent-credentials';
import { parseBody } from '../../common/parse-body';
import type { HubConfig } from '../../config';
import { HUB_CONFIG } from '../../tokens';
import { RegisterNodeCommand } from './register-node.command';

/** Agent registration and self-lookup. */
@ApiTags('agents')
@Public()
@Controller('v1/agents')
export class RegisterNodeController {
  constructor(
    private readonly commands: CommandBus,
    private readonly credentials: AgentCredentials,
    @Inject(HUB_CONFIG) private readonly config: HubConfig,
    @Inject(EVENT_STORE) private readonly store: EventStore,
  ) {}

  @Post('register')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Register an agent with a join token; returns node id, credential, topics and intervals',
  })
  @ApiBody({ schema: z.toJSONSchema(registerNodeRequestSchema, { io: 'input' }) as object })
  async register(
    @Body() body: unknown,
    @Headers('authorization') authorization: string | undefined,
  ): Promise<RegisterNodeResponse> {
    const request = parseBody(registerNodeRequestSchema, body, 'REGISTER');
    if (!joinTokenMatches(request.joinToken, this.config.joinToken)) {
      throw new HcnError('AUTH.INVALID_JOIN_TOKEN', 'The join token is not valid');
    }
    if (request.nodeId) await this.mayRegisterAgain(request.nodeId, bearer(authorization));
    const { joinToken: _omit, ...rest } = request;
    void _omit;
    const command = new RegisterNodeCommand({ ...rest, nodeId: rest.nodeId ?? randomUUID() }, randomUUID());
    return this.commands.execute(command);
  }

  /**
   * The join token creates nodes; an existing node is registered again only by its own agent (its credential) or
   * with an admin's re-enrolment token, so the join token never hands out another node's credential.
   */
  private async mayRegisterAgain(nodeId: string, token: string | undefined): Promise<void> {
    const events = await this.store.readStream(nodeStream(nodeId));
    if (foldRecorded(nodeDecider, events).status === 'unregistered') return;
    if (this.credentials.mayReregister(token, nodeId, new Date())) return;
    throw new HcnError(
      'AUTH.NODE_CREDENTIAL_REQUIRED',
      `Node ${nodeId} is registered: registering it again needs its credential or a re-enrolment token`,
      { nodeId },
    );
  }

  @Get('me')
  @ApiOperation({
    summary: "The calling agent's node as the event log knows it (404 when the hub forgot it)",
  })
  async me(
    @Headers('authorization') authorization: string | undefined,
  ): Promise<{ nodeId: string; status: string }> {
    const nodeId = this.credentials.nodeIdOf(bearer(authorization));
    const events = await this.store.readStream(nodeStream(nodeId));
    const state = foldRecorded(nodeDecider, events);
    if (state.status === 'unregistered')
      throw new HcnError('NODE.NOT_FOUND', `Node ${nodeId} is not registered`, { nodeId });
    return { nodeId, status: state.status };
  }
}
