import { DelegationStatusAnswer, delegationIdSchema, delegationStatusAnswerSchema, z } from '@hcn/contracts';
import { Body, Controller, HttpCode, Param, Post } from '@nestjs/common';
import { ApiBody, ApiOperation, ApiSecurity, ApiTags } from '@nestjs/swagger';
import { Public } from '../../auth/auth.guard';
import { ApiAnswer } from '../../common/api-answer';
import { parseBody } from '../../common/parse-body';
import { delegationEnvelopeSchema } from '../../federation/delegation/delegation-envelope';
import { DelegationStatusInbox } from '../../federation/delegation/status-inbox';
import { Federation } from '../../federation/federation';
import { SiteToSite } from '../../tls/site-certificate.guard';

const envelopeBody = z.toJSONSchema(delegationEnvelopeSchema, { io: 'input' }) as Record<string, unknown>;

/**
 * `POST /v1/federation/delegations/:delegationId/status` on the delegating site: the site running the delegation
 * reports its status (signed with the key the two share); recorded on the workload's stream, answered with what
 * that site is to do (continue, stop, cancel).
 */
@ApiTags('federation')
@Public()
@ApiSecurity({}) // signed with the key the two sites share instead
@Controller('v1/federation/delegations')
export class RecordDelegationStatusController {
  private readonly inbox: DelegationStatusInbox;

  constructor(federation: Federation) {
    this.inbox = federation.statusInbox;
  }

  @Post(':delegationId/status')
  @SiteToSite()
  @HttpCode(200)
  @ApiAnswer(delegationStatusAnswerSchema)
  @ApiOperation({
    summary:
      'A status report of a delegation this site made (idempotent on the reporting site revision): recorded on the workload, answered continue, stop or cancel',
  })
  @ApiBody({
    schema: {
      ...envelopeBody,
      description:
        'payload: the JSON text of a status report {delegationId, siteId, parentWorkloadId, workloadId, revision, eventId, hash?, status, at, ...}; mac: HMAC-SHA256 of "hcn-delegation-status|sentAt|payload" keyed with the key the sites share',
    },
  })
  recordStatus(
    @Param('delegationId') delegationId: string,
    @Body() body: unknown,
  ): Promise<DelegationStatusAnswer> {
    const id = parseBody(delegationIdSchema, delegationId, 'FEDERATION.DELEGATION_MALFORMED');
    const envelope = parseBody(delegationEnvelopeSchema, body, 'FEDERATION.DELEGATION');
    return this.inbox.record(id, envelope);
  }
}
