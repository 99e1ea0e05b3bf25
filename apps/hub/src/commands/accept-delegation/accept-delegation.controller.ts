import { DelegationAnswer, delegationAnswerSchema, z } from '@hcn/contracts';
import { Body, Controller, HttpCode, Inject, Post } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiBody, ApiOperation, ApiSecurity, ApiTags } from '@nestjs/swagger';
import { Public } from '../../auth/auth.guard';
import { ApiAnswer } from '../../common/api-answer';
import { parseBody } from '../../common/parse-body';
import { ChildDelegations } from '../../federation/delegation/child-delegations';
import { delegationEnvelopeSchema } from '../../federation/delegation/delegation-envelope';
import { Federation } from '../../federation/federation';
import { SiteToSite } from '../../tls/site-certificate.guard';
import { CLOCK, Clock } from '../../tokens';

const envelopeBody = z.toJSONSchema(delegationEnvelopeSchema, { io: 'input' }) as Record<string, unknown>;

/**
 * `POST /v1/federation/delegations` on a child site: its parent hands it a workload (signed with the site credential
 * the two share); the child admits and places it under its own rules and answers accepted or rejected at once.
 */
@ApiTags('federation')
@Public()
@ApiSecurity({}) // signed with the site credential the parent issued this site instead
@Controller('v1/federation')
export class AcceptDelegationController {
  private readonly delegations: ChildDelegations;

  constructor(
    federation: Federation,
    commands: CommandBus,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {
    const parent = () => federation.link?.parentCredential();
    const { namespaces, peerSecrets } = federation.config;
    this.delegations = new ChildDelegations(parent, namespaces, commands, peerSecrets);
  }

  @Post('delegations')
  @SiteToSite()
  @HttpCode(200)
  @ApiAnswer(delegationAnswerSchema)
  @ApiOperation({
    summary:
      "A delegation from this site's parent (idempotent on its id): admitted and placed here, answered accepted or rejected",
  })
  @ApiBody({
    schema: {
      ...envelopeBody,
      description:
        'payload: the JSON text of a delegation request {delegationId, parentSiteId, parentWorkloadId, namespace, spec}; mac: HMAC-SHA256 of "hcn-delegation|sentAt|payload" keyed with the site credential',
    },
  })
  accept(@Body() body: unknown): Promise<DelegationAnswer> {
    const envelope = parseBody(delegationEnvelopeSchema, body, 'FEDERATION.DELEGATION');
    return this.delegations.accept(envelope, this.clock());
  }
}
