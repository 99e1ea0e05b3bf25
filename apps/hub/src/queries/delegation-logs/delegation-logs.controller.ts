import { DelegationLogsAnswer, delegationIdSchema, delegationLogsAnswerSchema, z } from '@hcn/contracts';
import { EVENT_STORE, EventStore } from '@hcn/eventstore';
import { Body, Controller, HttpCode, Inject, Param, Post } from '@nestjs/common';
import { ApiBody, ApiOperation, ApiSecurity, ApiTags } from '@nestjs/swagger';
import { Public } from '../../auth/auth.guard';
import { ApiAnswer } from '../../common/api-answer';
import { parseBody } from '../../common/parse-body';
import { ChildControl } from '../../federation/delegation/child-control';
import { delegationEnvelopeSchema } from '../../federation/delegation/delegation-envelope';
import { Federation } from '../../federation/federation';
import { LogStore } from '../../logs/log-store';
import { SiteToSite } from '../../tls/site-certificate.guard';
import { CLOCK, Clock } from '../../tokens';

const envelopeBody = z.toJSONSchema(delegationEnvelopeSchema, { io: 'input' }) as Record<string, unknown>;

/**
 * `POST /v1/federation/delegations/:delegationId/logs` on the site running a delegation: the delegating site reads
 * its output (signed with the key the two share; a POST because site-to-site messages are signed in their body).
 */
@ApiTags('federation')
@Public()
@ApiSecurity({}) // signed with the key the two sites share instead
@Controller('v1/federation/delegations')
export class DelegationLogsController {
  private readonly control: ChildControl;

  constructor(
    federation: Federation,
    @Inject(EVENT_STORE) store: EventStore,
    @Inject(CLOCK) clock: Clock,
    logs: LogStore,
  ) {
    const siteId = () => federation.config.siteId;
    const tail = logs.tail.bind(logs);
    this.control = new ChildControl(siteId, (site) => federation.delegatorOf(site), store, clock, tail);
  }

  @Post(':delegationId/logs')
  @SiteToSite()
  @HttpCode(200)
  @ApiAnswer(delegationLogsAnswerSchema)
  @ApiOperation({
    summary: 'The output of a delegation made by the calling site: the last lines of its allocations here',
  })
  @ApiBody({
    schema: {
      ...envelopeBody,
      description:
        'payload: the JSON text of {delegationId, parentSiteId, namespace, lines, stream?}; mac: HMAC-SHA256 of "hcn-delegation-logs|sentAt|payload" keyed with the key the sites share',
    },
  })
  delegationLogs(
    @Param('delegationId') delegationId: string,
    @Body() body: unknown,
  ): Promise<DelegationLogsAnswer> {
    const id = parseBody(delegationIdSchema, delegationId, 'FEDERATION.DELEGATION_MALFORMED');
    const envelope = parseBody(delegationEnvelopeSchema, body, 'FEDERATION.DELEGATION');
    return this.control.logs(id, envelope);
  }
}
