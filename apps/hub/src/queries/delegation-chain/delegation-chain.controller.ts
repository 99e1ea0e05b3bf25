import { SiteChainPart, delegationIdSchema, siteChainPartSchema, z } from '@hcn/contracts';
import { EVENT_STORE, EventStore } from '@hcn/eventstore';
import { Body, Controller, HttpCode, Inject, Param, Post } from '@nestjs/common';
import { ApiBody, ApiOperation, ApiSecurity, ApiTags } from '@nestjs/swagger';
import { Public } from '../../auth/auth.guard';
import { ApiAnswer } from '../../common/api-answer';
import { parseBody } from '../../common/parse-body';
import { DelegatedChainReader } from '../../federation/audit/delegated-chain';
import { delegationEnvelopeSchema } from '../../federation/delegation/delegation-envelope';
import { Federation } from '../../federation/federation';
import { SiteToSite } from '../../tls/site-certificate.guard';
import { CLOCK, Clock } from '../../tokens';

const envelopeBody = z.toJSONSchema(delegationEnvelopeSchema, { io: 'input' }) as Record<string, unknown>;

/**
 * `POST /v1/federation/delegations/:delegationId/chain` on the site running a delegation: the delegating site reads
 * that workload's stream (stored events with their hash links, and the head) to stitch and verify its chain.
 * A read, signed in the body as every site-to-site request (hence POST).
 */
@ApiTags('federation')
@Public()
@ApiSecurity({}) // signed with the key the two sites share instead
@Controller('v1/federation/delegations')
export class DelegationChainController {
  private readonly reader: DelegatedChainReader;

  constructor(federation: Federation, @Inject(EVENT_STORE) store: EventStore, @Inject(CLOCK) clock: Clock) {
    const siteId = () => federation.config.siteId;
    this.reader = new DelegatedChainReader(siteId, (site) => federation.delegatorOf(site), store, clock);
  }

  @Post(':delegationId/chain')
  @SiteToSite()
  @HttpCode(200)
  @ApiAnswer(siteChainPartSchema)
  @ApiOperation({
    summary:
      'The stream of the workload this site runs for a delegation of the asking site: stored events with hash links and the head (only that site may read it)',
  })
  @ApiBody({
    schema: {
      ...envelopeBody,
      description:
        'payload: the JSON text of {siteId, delegationId, namespace}; mac: HMAC-SHA256 of "hcn-delegation-chain|sentAt|payload" keyed with the key the sites share',
    },
  })
  chain(@Param('delegationId') delegationId: string, @Body() body: unknown): Promise<SiteChainPart> {
    const id = parseBody(delegationIdSchema, delegationId, 'FEDERATION.CHAIN_REQUEST_MALFORMED');
    const envelope = parseBody(delegationEnvelopeSchema, body, 'FEDERATION.CHAIN_REQUEST_MALFORMED');
    return this.reader.read(id, envelope);
  }
}
