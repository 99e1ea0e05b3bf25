import { Public } from '../../auth/auth.guard';
import {
  BootstrapClaims,
  HcnError,
  RegisterNodeResponse,
  nodeStream,
  registerNodeRequestSchema,
} from '@hcn/contracts';
import { nodeDecider, foldRecorded } from '@hcn/domain';
import { EVENT_STORE, EventStore } from '@hcn/eventstore';
import { Body, Controller, Headers, HttpCode, Inject, Post } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiBody, ApiOperation, ApiSecurity, ApiTags } from '@nestjs/swagger';
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { AgentCredentials, bearer, joinTokenMatches } from '../../auth/agent-credentials';
import { parseBody } from '../../common/parse-body';
import type { HubConfig } from '../../config';
import { HUB_CONFIG } from '../../tokens';
import { RegisterNodeCommand } from './register-node.command';
import { currentRequestId } from '../../common/request-scope';

/** A registration body as parsed. */
type Registration = z.output<typeof registerNodeRequestSchema>;

/** `POST /v1/agents/register`: agent registration (self-lookup: queries/agents.controller.ts). */
@ApiTags('agents')
@Public()
@ApiSecurity({}) // anonymous with a join token in the body, or an agent's credential (re-registration)
@ApiSecurity('bearer')
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
    const nodeId = await this.admit(request, bearer(authorization));
    const { joinToken: _omit, ...rest } = request;
    void _omit;
    return this.commands.execute(
      new RegisterNodeCommand({ ...rest, nodeId }, currentRequestId() ?? randomUUID()),
    );
  }

  /**
   * The node id a registration may use. An existing node is registered again only by its own agent (its
   * credential) or with an admin's re-enrolment token; a new node needs the shared join token (when configured) or
   * a per-node bootstrap token, which names the node (and maybe its domain). So no join token ever hands out
   * another node's credential, and a bootstrap token is spent once its node exists.
   */
  private async admit(request: Registration, token: string | undefined): Promise<string> {
    const now = new Date();
    const bootstrap = this.credentials.bootstrapClaims(request.joinToken, now);
    const shared =
      this.config.joinToken !== undefined && joinTokenMatches(request.joinToken, this.config.joinToken);
    const nodeId = request.nodeId ?? bootstrap?.nodeId;
    if (nodeId && (await this.isRegistered(nodeId))) {
      if (this.credentials.mayReregister(token, nodeId, now)) return nodeId;
      if (!bootstrap && !shared) throw invalidJoinToken(); // strangers learn nothing about which nodes exist
      throw new HcnError(
        'AUTH.NODE_CREDENTIAL_REQUIRED',
        `Node ${nodeId} is registered: registering it again needs its credential or a re-enrolment token`,
        { nodeId },
      );
    }
    if (bootstrap) return this.boundNodeId(bootstrap, request);
    if (!shared) throw invalidJoinToken();
    return nodeId ?? randomUUID();
  }

  /** The bootstrap token's node, when the request asks for no other node or domain. */
  private boundNodeId(claims: BootstrapClaims, request: Registration): string {
    const otherNode = request.nodeId !== undefined && request.nodeId !== claims.nodeId;
    const otherDomain = claims.domainId !== undefined && claims.domainId !== request.domainId;
    if (otherNode || otherDomain)
      throw new HcnError(
        'AUTH.BOOTSTRAP_TOKEN_MISMATCH',
        `This bootstrap token registers only node ${claims.nodeId}${claims.domainId ? ` in domain ${claims.domainId}` : ''}`,
        { nodeId: claims.nodeId, ...(claims.domainId ? { domainId: claims.domainId } : {}) },
      );
    return claims.nodeId;
  }

  private async isRegistered(nodeId: string): Promise<boolean> {
    const events = await this.store.readStream(nodeStream(nodeId));
    return foldRecorded(nodeDecider, events).status !== 'unregistered';
  }
}

function invalidJoinToken(): HcnError {
  return new HcnError('AUTH.INVALID_JOIN_TOKEN', 'The join token is not valid');
}
