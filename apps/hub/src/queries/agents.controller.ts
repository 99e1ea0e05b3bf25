import { HcnError, nodeStream } from '@hcn/contracts';
import { foldRecorded, nodeDecider } from '@hcn/domain';
import { EVENT_STORE, EventStore } from '@hcn/eventstore';
import { Controller, Get, Headers, Inject } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { AgentCredentials, bearer } from '../auth/agent-credentials';
import { Public } from '../auth/auth.guard';
import { HeartbeatCadence } from '../sagas/heartbeat-cadence';

/** The answer of `GET /v1/agents/me`: the node as the log knows it, and the cadence it is to keep now. */
export interface AgentSelf {
  readonly nodeId: string;
  readonly status: string;
  readonly heartbeatIntervalSeconds: number;
  readonly nodeTtlSeconds: number;
}

/** `GET /v1/agents/me`: an agent's self-lookup (its credential, not an API token). */
@ApiTags('agents')
@Public()
@Controller('v1/agents')
export class AgentSelfController {
  constructor(
    private readonly credentials: AgentCredentials,
    @Inject(EVENT_STORE) private readonly store: EventStore,
    private readonly cadence: HeartbeatCadence,
  ) {}

  @Get('me')
  @ApiOperation({
    summary:
      "The calling agent's node as the event log knows it (404 when the hub forgot it), and the heartbeat interval and TTL it is to keep now",
  })
  async me(@Headers('authorization') authorization: string | undefined): Promise<AgentSelf> {
    const nodeId = this.credentials.nodeIdOf(bearer(authorization));
    const events = await this.store.readStream(nodeStream(nodeId));
    const state = foldRecorded(nodeDecider, events);
    if (state.status === 'unregistered')
      throw new HcnError('NODE.NOT_FOUND', `Node ${nodeId} is not registered`, { nodeId });
    const cadence = this.cadence.current();
    return {
      nodeId,
      status: state.status,
      heartbeatIntervalSeconds: cadence.intervalSeconds,
      nodeTtlSeconds: cadence.ttlSeconds,
    };
  }
}
