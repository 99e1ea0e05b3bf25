import {
  DelegationControlAnswer,
  delegationControlAnswerSchema,
  delegationIdSchema,
  z,
} from '@hcn/contracts';
import { Body, Controller, HttpCode, Inject, Param, Post } from '@nestjs/common';
import { ApiBody, ApiOperation, ApiSecurity, ApiTags } from '@nestjs/swagger';
import { Public } from '../../auth/auth.guard';
import { ApiAnswer } from '../../common/api-answer';
import { parseBody } from '../../common/parse-body';
import { ChildControl } from '../../federation/delegation/child-control';
import { delegationEnvelopeSchema } from '../../federation/delegation/delegation-envelope';
import { Federation } from '../../federation/federation';
import { SiteToSite } from '../../tls/site-certificate.guard';
import { EVENT_STORE, EventStore } from '@hcn/eventstore';
import { CLOCK, Clock } from '../../tokens';

const envelopeBody = z.toJSONSchema(delegationEnvelopeSchema, { io: 'input' }) as Record<string, unknown>;

/**
 * `POST /v1/federation/delegations/:delegationId/control` on the site running a delegation: the delegating site asks
 * for its status, a stop or a cancel (signed with the key the two share).
 */
@ApiTags('federation')
@Public()
@ApiSecurity({}) // signed with the key the two sites share instead
@Controller('v1/federation/delegations')
export class ControlDelegationController {
  private readonly control: ChildControl;

  constructor(federation: Federation, @Inject(EVENT_STORE) store: EventStore, @Inject(CLOCK) clock: Clock) {
    const siteId = () => federation.config.siteId;
    this.control = new ChildControl(siteId, (site) => federation.delegatorOf(site), store, clock);
  }

  @Post(':delegationId/control')
  @SiteToSite()
  @HttpCode(200)
  @ApiAnswer(delegationControlAnswerSchema)
  @ApiOperation({
    summary:
      'A control request of the site that delegated a workload here: its status, a stop or a cancel; answers the status after it',
  })
  @ApiBody({
    schema: {
      ...envelopeBody,
      description:
        'payload: the JSON text of {delegationId, parentSiteId, namespace, action: status|stop|cancel, reason}; mac: HMAC-SHA256 of "hcn-delegation-control|sentAt|payload" keyed with the key the sites share',
    },
  })
  controlDelegation(
    @Param('delegationId') delegationId: string,
    @Body() body: unknown,
  ): Promise<DelegationControlAnswer> {
    const id = parseBody(delegationIdSchema, delegationId, 'FEDERATION.DELEGATION_MALFORMED');
    const envelope = parseBody(delegationEnvelopeSchema, body, 'FEDERATION.DELEGATION');
    return this.control.control(id, envelope);
  }
}
